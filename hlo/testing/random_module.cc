#include "hlo/testing/random_module.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"

namespace tessera {
namespace {

class Generator {
 public:
  explicit Generator(const RandomModuleOptions& options)
      : options_(options), rng_(options.seed), type_(options.element_type) {}

  std::unique_ptr<HloModule> Make() {
    auto module = std::make_unique<HloModule>(absl::StrCat("random_", options_.seed));
    module_ = module.get();
    HloComputation* adder = MakeAdder();
    auto entry = std::make_unique<HloComputation>("main");
    computation_ = entry.get();
    module->AddEntryComputation(std::move(entry));
    adder_ = adder;
    for (int i = 0; i < options_.num_parameters; ++i) {
      pool_.push_back(computation_->AddInstruction(
          HloInstruction::CreateParameter(i, RandomShape(), absl::StrCat("p", i))));
    }
    for (int i = 0; i < options_.num_instructions; ++i) Step();
    // The root returns the last few values, so most of the graph is live.
    std::vector<HloInstruction*> outputs;
    const int count = std::min<int>(3, pool_.size());
    for (int i = 0; i < count; ++i) outputs.push_back(pool_[pool_.size() - 1 - i]);
    computation_->set_root_instruction(
        computation_->AddInstruction(HloInstruction::CreateTuple(outputs)));
    return module;
  }

 private:
  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool Coin() { return Uniform(0, 1) == 1; }
  bool IsFloat() const { return type_ == F32; }

  Shape ArrayShape(PrimitiveType type, std::vector<int64_t> dims) {
    Shape shape = Shape::MakeArrayWithDescendingLayout(type, std::move(dims));
    if (options_.random_layouts && shape.rank() >= 2 && Coin()) {
      std::shuffle(shape.mutable_layout()->minor_to_major.begin(),
                   shape.mutable_layout()->minor_to_major.end(), rng_);
    }
    return shape;
  }
  Shape RandomShape() {
    std::vector<int64_t> dims(Uniform(1, 3));
    for (int64_t& d : dims) d = Uniform(1, 4);
    return ArrayShape(type_, dims);
  }

  HloComputation* MakeAdder() {
    auto adder = std::make_unique<HloComputation>("add");
    const Shape scalar = ArrayShape(type_, {});
    HloInstruction* a = adder->AddInstruction(HloInstruction::CreateParameter(0, scalar, "a"));
    HloInstruction* b = adder->AddInstruction(HloInstruction::CreateParameter(1, scalar, "b"));
    adder->set_root_instruction(adder->AddInstruction(
        HloInstruction::CreateBinary(scalar, HloOpcode::kAdd, a, b)));
    return module_->AddEmbeddedComputation(std::move(adder));
  }

  HloInstruction* Add(std::unique_ptr<HloInstruction> instruction) {
    HloInstruction* added = computation_->AddInstruction(std::move(instruction));
    pool_.push_back(added);
    return added;
  }
  HloInstruction* Pick() { return pool_[Uniform(0, pool_.size() - 1)]; }
  // A pool value of `dims`, or null.
  HloInstruction* PickWithDims(const std::vector<int64_t>& dims, HloInstruction* not_this) {
    std::vector<HloInstruction*> candidates;
    for (HloInstruction* value : pool_) {
      if (value != not_this && value->shape().dimensions() == dims) candidates.push_back(value);
    }
    return candidates.empty() ? nullptr : candidates[Uniform(0, candidates.size() - 1)];
  }

  HloInstruction* ScalarConstant() {
    static const int kValues[] = {0, 1, -1, 2, 3};
    const int value = kValues[Uniform(0, 4)];
    Literal literal = IsFloat() ? Literal::CreateR0<float>(static_cast<float>(value))
                                : Literal::CreateR0<int32_t>(value);
    return computation_->AddInstruction(HloInstruction::CreateConstant(std::move(literal)));
  }
  HloInstruction* BroadcastConstant(const std::vector<int64_t>& dims) {
    return computation_->AddInstruction(
        HloInstruction::CreateBroadcast(ArrayShape(type_, dims), ScalarConstant(), {}));
  }

  void Step() {
    HloInstruction* x = Pick();
    const std::vector<int64_t> dims = x->shape().dimensions();
    // Scalars (full reductions) only feed elementwise ops.
    switch (dims.empty() ? Uniform(0, 2) : Uniform(0, 11)) {
      case 0: {  // unary
        static const HloOpcode kFloatOps[] = {HloOpcode::kNegate, HloOpcode::kAbs,
                                              HloOpcode::kExp, HloOpcode::kTanh,
                                              HloOpcode::kFloor, HloOpcode::kSign};
        static const HloOpcode kIntOps[] = {HloOpcode::kNegate, HloOpcode::kAbs,
                                            HloOpcode::kNot, HloOpcode::kSign};
        const HloOpcode op = IsFloat() ? kFloatOps[Uniform(0, 5)] : kIntOps[Uniform(0, 3)];
        Add(HloInstruction::CreateUnary(x->shape(), op, x));
        return;
      }
      case 1:
      case 2: {  // binary with another value or a constant
        static const HloOpcode kOps[] = {HloOpcode::kAdd, HloOpcode::kSubtract,
                                         HloOpcode::kMultiply, HloOpcode::kMaximum,
                                         HloOpcode::kMinimum, HloOpcode::kDivide};
        const HloOpcode op = kOps[Uniform(0, 5)];
        HloInstruction* y = Coin() ? PickWithDims(dims, nullptr) : nullptr;
        if (y == nullptr) y = BroadcastConstant(dims);
        if (Coin()) std::swap(x, y);
        Add(HloInstruction::CreateBinary(x->shape(), op, x, y));
        return;
      }
      case 3: {  // transpose
        std::vector<int64_t> permutation(dims.size());
        std::iota(permutation.begin(), permutation.end(), 0);
        std::shuffle(permutation.begin(), permutation.end(), rng_);
        std::vector<int64_t> out(dims.size());
        for (size_t i = 0; i < dims.size(); ++i) out[i] = dims[permutation[i]];
        Add(HloInstruction::CreateTranspose(ArrayShape(type_, out), x, permutation));
        return;
      }
      case 4: {  // reshape: flatten, or split off a unit dimension
        const int64_t elements = x->shape().ElementCount();
        std::vector<int64_t> out = Coin() ? std::vector<int64_t>{elements}
                                          : std::vector<int64_t>{1, elements};
        if (dims.size() >= 3) out = {dims[0] * dims[1], dims[2]};
        Add(HloInstruction::CreateReshape(ArrayShape(type_, out), x));
        return;
      }
      case 5: {  // broadcast into a new major dimension
        if (dims.size() >= 3) return;
        std::vector<int64_t> out = {Uniform(1, 3)};
        out.insert(out.end(), dims.begin(), dims.end());
        std::vector<int64_t> mapping(dims.size());
        std::iota(mapping.begin(), mapping.end(), 1);
        Add(HloInstruction::CreateBroadcast(ArrayShape(type_, out), x, mapping));
        return;
      }
      case 6: {  // slice
        std::vector<SliceDimension> slice;
        std::vector<int64_t> out;
        for (int64_t d : dims) {
          const int64_t start = Uniform(0, d - 1);
          const int64_t limit = Uniform(start + 1, d);
          slice.push_back({start, limit, 1});
          out.push_back(limit - start);
        }
        Add(HloInstruction::CreateSlice(ArrayShape(type_, out), x, slice));
        return;
      }
      case 7: {  // concatenate with a same-shaped value
        HloInstruction* y = PickWithDims(dims, nullptr);
        if (y == nullptr) return;
        const int64_t dim = Uniform(0, dims.size() - 1);
        std::vector<int64_t> out = dims;
        out[dim] *= 2;
        auto concat = HloInstruction::Create(HloOpcode::kConcatenate, ArrayShape(type_, out),
                                             {x, y});
        concat->mutable_attrs().dimensions = {dim};
        Add(std::move(concat));
        return;
      }
      case 8: {  // reduce one dimension with add
        const int64_t dim = Uniform(0, dims.size() - 1);
        std::vector<int64_t> out = dims;
        out.erase(out.begin() + dim);
        HloInstruction* zero = computation_->AddInstruction(HloInstruction::CreateConstant(
            IsFloat() ? Literal::CreateR0<float>(0) : Literal::CreateR0<int32_t>(0)));
        Add(HloInstruction::CreateReduce(ArrayShape(type_, out), {x, zero}, {dim}, adder_));
        return;
      }
      case 9: {  // dot: contract the last dimension of x with a matching matrix
        if (dims.size() > 2) return;
        const int64_t k = dims.back();
        const int64_t n = Uniform(1, 3);
        HloInstruction* w = PickWithDims({k, n}, nullptr);
        if (w == nullptr) {
          w = computation_->AddInstruction(
              HloInstruction::CreateBroadcast(ArrayShape(type_, {k, n}), ScalarConstant(), {}));
        }
        DotDimensionNumbers dnums;
        dnums.lhs_contracting_dimensions = {static_cast<int64_t>(dims.size()) - 1};
        dnums.rhs_contracting_dimensions = {0};
        std::vector<int64_t> out(dims.begin(), dims.end() - 1);
        out.push_back(n);
        Add(HloInstruction::CreateDot(ArrayShape(type_, out), x, w, dnums));
        return;
      }
      case 10: {  // select(compare(x, y), x, y)
        HloInstruction* y = PickWithDims(dims, x);
        if (y == nullptr) y = BroadcastConstant(dims);
        static const ComparisonDirection kDirections[] = {
            ComparisonDirection::kLt, ComparisonDirection::kGe, ComparisonDirection::kEq};
        HloInstruction* predicate = computation_->AddInstruction(HloInstruction::CreateCompare(
            ArrayShape(PRED, dims), x, y, kDirections[Uniform(0, 2)]));
        Add(HloInstruction::CreateTernary(x->shape(), HloOpcode::kSelect, predicate, x, y));
        return;
      }
      case 11: {  // convert there and back through another type
        const PrimitiveType other = IsFloat() ? F64 : S64;
        HloInstruction* wide = computation_->AddInstruction(
            HloInstruction::CreateConvert(ArrayShape(other, dims), x));
        Add(HloInstruction::CreateConvert(x->shape(), wide));
        return;
      }
    }
  }

  RandomModuleOptions options_;
  std::mt19937_64 rng_;
  PrimitiveType type_;
  HloModule* module_ = nullptr;
  HloComputation* computation_ = nullptr;
  HloComputation* adder_ = nullptr;
  std::vector<HloInstruction*> pool_;
};

}  // namespace

std::unique_ptr<HloModule> MakeRandomModule(const RandomModuleOptions& options) {
  return Generator(options).Make();
}

}  // namespace tessera
