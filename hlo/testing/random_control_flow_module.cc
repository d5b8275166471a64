#include "hlo/testing/random_control_flow_module.h"

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace tessera {
namespace {

// The array dimensions values take: {2,3} and {6} bitcast into each other.
const std::vector<std::vector<int64_t>>& AllDims() {
  static const auto* const kDims =
      new std::vector<std::vector<int64_t>>{{4}, {2, 3}, {6}, {}};
  return *kDims;
}

class Generator {
 public:
  explicit Generator(const RandomControlFlowModuleOptions& options)
      : options_(options), rng_(options.seed * 7919 + 17), type_(options.element_type) {}

  std::unique_ptr<HloModule> Make() {
    auto module = std::make_unique<HloModule>(absl::StrCat("random_control_flow_", options_.seed));
    module_ = module.get();
    adder_ = MakeAdder();
    auto entry = std::make_unique<HloComputation>("main");
    Context ctx{entry.get(), {}, 0};
    module->AddEntryComputation(std::move(entry));
    for (int i = 0; i < options_.num_parameters; ++i) {
      ctx.pool.push_back(ctx.computation->AddInstruction(HloInstruction::CreateParameter(
          i, Array(AllDims()[Uniform(0, 3)]), absl::StrCat("arg", i))));
    }
    for (int i = 0; i < options_.num_steps; ++i) Step(ctx, /*allow_control_flow=*/true);
    // The result: the last few values, sometimes a parameter, a constant or
    // a repeated value too.
    std::vector<HloInstruction*> outputs;
    const int count = std::min<int>(3, ctx.pool.size());
    for (int i = 0; i < count; ++i) outputs.push_back(ctx.pool[ctx.pool.size() - 1 - i]);
    if (Uniform(0, 3) == 0) outputs.push_back(ctx.computation->parameter_instruction(0));
    if (Uniform(0, 4) == 0) outputs.push_back(ConstantArray(ctx, AllDims()[Uniform(0, 3)]));
    if (Uniform(0, 4) == 0) outputs.push_back(outputs.front());
    HloInstruction* root = ctx.computation->AddInstruction(HloInstruction::CreateTuple(outputs));
    ctx.computation->set_root_instruction(root);
    // Sometimes the caller donates a parameter to an output of its shape.
    if (Uniform(0, 2) == 0) {
      for (int64_t p = 0; p < options_.num_parameters; ++p) {
        const Shape& shape = ctx.computation->parameter_instruction(p)->shape();
        for (int64_t i = 0; i < static_cast<int64_t>(outputs.size()); ++i) {
          if (outputs[i]->shape() == shape && module->config().input_output_alias.empty()) {
            InputOutputAlias alias;
            alias.output_index = {i};
            alias.parameter_number = p;
            module->config().input_output_alias.push_back(alias);
          }
        }
      }
    }
    return module;
  }

 private:
  struct Context {
    HloComputation* computation;
    std::vector<HloInstruction*> pool;  // array values to build on
    int depth;
  };

  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool IsFloat() const { return type_ == F32; }
  Shape Array(const std::vector<int64_t>& dims, PrimitiveType type = PRIMITIVE_TYPE_INVALID) {
    Shape shape = Shape::MakeArrayWithDescendingLayout(
        type == PRIMITIVE_TYPE_INVALID ? type_ : type, dims);
    if (options_.random_layouts && shape.rank() >= 2 && Uniform(0, 1) == 1) {
      std::shuffle(shape.mutable_layout()->minor_to_major.begin(),
                   shape.mutable_layout()->minor_to_major.end(), rng_);
    }
    return shape;
  }

  HloComputation* MakeAdder() {
    auto adder = std::make_unique<HloComputation>("add");
    const Shape scalar = Array({});
    HloInstruction* a = adder->AddInstruction(HloInstruction::CreateParameter(0, scalar, "lhs"));
    HloInstruction* b = adder->AddInstruction(HloInstruction::CreateParameter(1, scalar, "rhs"));
    adder->set_root_instruction(
        adder->AddInstruction(HloInstruction::CreateBinary(scalar, HloOpcode::kAdd, a, b)));
    return module_->AddEmbeddedComputation(std::move(adder));
  }

  HloInstruction* Add(Context& ctx, std::unique_ptr<HloInstruction> instruction) {
    HloInstruction* added = ctx.computation->AddInstruction(std::move(instruction));
    ctx.pool.push_back(added);
    return added;
  }
  HloInstruction* Pick(Context& ctx) { return ctx.pool[Uniform(0, ctx.pool.size() - 1)]; }
  HloInstruction* PickWithDims(Context& ctx, const std::vector<int64_t>& dims) {
    std::vector<HloInstruction*> candidates;
    for (HloInstruction* value : ctx.pool) {
      if (value->shape().dimensions() == dims) candidates.push_back(value);
    }
    return candidates.empty() ? nullptr : candidates[Uniform(0, candidates.size() - 1)];
  }

  HloInstruction* Scalar(Context& ctx, int value) {
    Literal literal = IsFloat() ? Literal::CreateR0<float>(static_cast<float>(value))
                                : Literal::CreateR0<int32_t>(value);
    return ctx.computation->AddInstruction(HloInstruction::CreateConstant(std::move(literal)));
  }
  HloInstruction* S32Constant(Context& ctx, int value) {
    return ctx.computation->AddInstruction(
        HloInstruction::CreateConstant(Literal::CreateR0<int32_t>(value)));
  }
  // A constant array, written out or broadcast.
  HloInstruction* ConstantArray(Context& ctx, const std::vector<int64_t>& dims) {
    if (dims.empty() || Uniform(0, 1) == 0) {
      HloInstruction* scalar = Scalar(ctx, Uniform(-2, 3));
      if (dims.empty()) return scalar;
      return ctx.computation->AddInstruction(
          HloInstruction::CreateBroadcast(Array(dims), scalar, {}));
    }
    Literal literal(Array(dims));
    for (int64_t i = 0; i < literal.element_count(); ++i) literal.SetFromInt64(i, Uniform(-3, 3));
    return ctx.computation->AddInstruction(HloInstruction::CreateConstant(std::move(literal)));
  }

  void Step(Context& ctx, bool allow_control_flow) {
    const int choice = Uniform(0, allow_control_flow && ctx.depth < options_.max_depth ? 11 : 8);
    HloInstruction* x = Pick(ctx);
    const std::vector<int64_t> dims = x->shape().dimensions();
    switch (choice) {
      case 0:
      case 1: {
        static const HloOpcode kFloatOps[] = {HloOpcode::kNegate, HloOpcode::kTanh,
                                              HloOpcode::kSin, HloOpcode::kAbs};
        static const HloOpcode kIntOps[] = {HloOpcode::kNegate, HloOpcode::kAbs, HloOpcode::kNot};
        const HloOpcode op = IsFloat() ? kFloatOps[Uniform(0, 3)] : kIntOps[Uniform(0, 2)];
        Add(ctx, HloInstruction::CreateUnary(x->shape(), op, x));
        return;
      }
      case 2:
      case 3: {
        static const HloOpcode kOps[] = {HloOpcode::kAdd, HloOpcode::kSubtract,
                                         HloOpcode::kMultiply, HloOpcode::kMaximum,
                                         HloOpcode::kMinimum};
        HloInstruction* y = Uniform(0, 2) ? PickWithDims(ctx, dims) : nullptr;
        if (y == nullptr) y = ConstantArray(ctx, dims);
        if (Uniform(0, 1)) std::swap(x, y);
        Add(ctx, HloInstruction::CreateBinary(x->shape(), kOps[Uniform(0, 4)], x, y));
        return;
      }
      case 4:
        ctx.pool.push_back(ConstantArray(ctx, AllDims()[Uniform(0, 3)]));
        return;
      case 5: {  // bitcast {2,3} <-> {6}
        if (dims == std::vector<int64_t>{2, 3}) {
          Add(ctx, HloInstruction::Create(HloOpcode::kBitcast, Array({6}), {x}));
        } else if (dims == std::vector<int64_t>{6}) {
          Add(ctx, HloInstruction::Create(HloOpcode::kBitcast, Array({2, 3}), {x}));
        }
        return;
      }
      case 6: {  // dynamic-update-slice of two elements
        if (dims.size() != 1) return;
        HloInstruction* update;
        if (Uniform(0, 1)) {
          update = ctx.computation->AddInstruction(
              HloInstruction::CreateSlice(Array({2}), x, {{0, 2, 1}}));
        } else {
          update = ConstantArray(ctx, {2});
        }
        HloInstruction* index = S32Constant(ctx, Uniform(-1, 5));
        Add(ctx, HloInstruction::Create(HloOpcode::kDynamicUpdateSlice, x->shape(),
                                        {x, update, index}));
        return;
      }
      case 7: {  // reduce to a scalar, broadcast back
        std::vector<int64_t> all(dims.size());
        for (size_t i = 0; i < dims.size(); ++i) all[i] = i;
        HloInstruction* sum = ctx.computation->AddInstruction(
            HloInstruction::CreateReduce(Array({}), {x, Scalar(ctx, 0)}, all, adder_));
        const std::vector<int64_t>& to = AllDims()[Uniform(0, 3)];
        if (to.empty()) {
          ctx.pool.push_back(sum);
        } else {
          Add(ctx, HloInstruction::CreateBroadcast(Array(to), sum, {}));
        }
        return;
      }
      case 8: {  // through a tuple
        HloInstruction* y = Pick(ctx);
        HloInstruction* tuple =
            ctx.computation->AddInstruction(HloInstruction::CreateTuple({x, y}));
        const int64_t i = Uniform(0, 1);
        Add(ctx, HloInstruction::CreateGetTupleElement(tuple->shape().tuple_shapes(i), tuple, i));
        return;
      }
      case 9:
        While(ctx);
        return;
      case 10:
        Conditional(ctx);
        return;
      default:
        Call(ctx);
        return;
    }
  }

  // Adds `computation` (built standalone) to the module.
  HloComputation* Finish(std::unique_ptr<HloComputation> computation) {
    return module_->AddEmbeddedComputation(std::move(computation));
  }

  // The elements of a value of `shape` held by `value`, as gtes (or itself).
  std::vector<HloInstruction*> Elements(Context& ctx, HloInstruction* value) {
    if (!value->shape().IsTuple()) return {value};
    std::vector<HloInstruction*> elements;
    for (int64_t i = 0; i < value->shape().tuple_size(); ++i) {
      elements.push_back(ctx.computation->AddInstruction(
          HloInstruction::CreateGetTupleElement(value->shape().tuple_shapes(i), value, i)));
    }
    return elements;
  }

  void While(Context& ctx) {
    const int k = Uniform(1, 3);
    std::vector<HloInstruction*> init_elements = {S32Constant(ctx, 0)};
    std::vector<Shape> shapes = {Array({}, S32)};
    for (int i = 0; i < k; ++i) {
      init_elements.push_back(Pick(ctx));
      shapes.push_back(init_elements.back()->shape());
    }
    const Shape state_shape = Shape::MakeTuple(shapes);
    HloInstruction* init =
        ctx.computation->AddInstruction(HloInstruction::CreateTuple(init_elements));

    auto body = std::make_unique<HloComputation>("body");
    Context inner{body.get(), {}, ctx.depth + 1};
    HloInstruction* state =
        body->AddInstruction(HloInstruction::CreateParameter(0, state_shape, "state"));
    std::vector<HloInstruction*> olds = Elements(inner, state);
    inner.pool.assign(olds.begin() + 1, olds.end());
    const int steps = Uniform(0, 3);
    for (int i = 0; i < steps; ++i) Step(inner, true);
    std::vector<HloInstruction*> next = {body->AddInstruction(HloInstruction::CreateBinary(
        shapes[0], HloOpcode::kAdd, olds[0], S32Constant(inner, 1)))};
    for (int i = 1; i <= k; ++i) {
      const std::vector<int64_t>& dims = shapes[i].dimensions();
      HloInstruction* value = nullptr;
      switch (Uniform(0, 5)) {
        case 0: value = olds[i]; break;                         // unchanged
        case 1: value = ConstantArray(inner, dims); break;       // replaced
        case 2: value = PickWithDims(inner, dims); break;        // anything (a swap too)
        default: {                                                // the newest of its dims
          for (auto it = inner.pool.rbegin(); it != inner.pool.rend() && value == nullptr; ++it) {
            if ((*it)->shape().dimensions() == dims) value = *it;
          }
        }
      }
      if (value == nullptr) value = olds[i];
      next.push_back(value);
    }
    body->set_root_instruction(body->AddInstruction(HloInstruction::CreateTuple(next)));

    auto condition = std::make_unique<HloComputation>("cond");
    HloInstruction* cstate =
        condition->AddInstruction(HloInstruction::CreateParameter(0, state_shape, "cstate"));
    HloInstruction* counter = condition->AddInstruction(
        HloInstruction::CreateGetTupleElement(shapes[0], cstate, 0));
    HloInstruction* limit = condition->AddInstruction(
        HloInstruction::CreateConstant(Literal::CreateR0<int32_t>(Uniform(0, 3))));
    condition->set_root_instruction(condition->AddInstruction(HloInstruction::CreateCompare(
        Array({}, PRED), counter, limit, ComparisonDirection::kLt)));

    HloComputation* body_computation = Finish(std::move(body));
    HloComputation* condition_computation = Finish(std::move(condition));
    HloInstruction* loop = ctx.computation->AddInstruction(
        HloInstruction::CreateWhile(state_shape, condition_computation, body_computation, init));
    std::vector<HloInstruction*> results = Elements(ctx, loop);
    for (int i = 1; i <= k; ++i) {
      if (Uniform(0, 3)) ctx.pool.push_back(results[i]);
    }
  }

  void Conditional(Context& ctx) {
    const bool by_pred = Uniform(0, 1) == 0;
    const int branches = by_pred ? 2 : Uniform(1, 3);
    HloInstruction* selector;
    if (by_pred) {
      HloInstruction* x = Pick(ctx);
      std::vector<int64_t> all(x->shape().rank());
      for (size_t i = 0; i < all.size(); ++i) all[i] = i;
      HloInstruction* sum = ctx.computation->AddInstruction(
          HloInstruction::CreateReduce(Array({}), {x, Scalar(ctx, 0)}, all, adder_));
      selector = ctx.computation->AddInstruction(HloInstruction::CreateCompare(
          Array({}, PRED), sum, Scalar(ctx, 0), ComparisonDirection::kGt));
    } else {
      selector = S32Constant(ctx, Uniform(-1, branches));
    }
    // The result: one array, or a pair.
    std::vector<Shape> result_shapes = {Pick(ctx)->shape()};
    if (Uniform(0, 2) == 0) result_shapes.push_back(Pick(ctx)->shape());
    const Shape result_shape =
        result_shapes.size() == 1 ? result_shapes[0] : Shape::MakeTuple(result_shapes);
    std::vector<HloInstruction*> operands = {selector};
    std::vector<HloComputation*> computations;
    for (int b = 0; b < branches; ++b) {
      HloInstruction* operand = Pick(ctx);
      if (Uniform(0, 2) == 0) {
        operand = ctx.computation->AddInstruction(HloInstruction::CreateTuple({operand, Pick(ctx)}));
      }
      operands.push_back(operand);
      auto branch = std::make_unique<HloComputation>(absl::StrCat("branch", b));
      Context inner{branch.get(), {}, ctx.depth + 1};
      HloInstruction* parameter = branch->AddInstruction(
          HloInstruction::CreateParameter(0, operand->shape(), "operand"));
      inner.pool = Elements(inner, parameter);
      const int steps = Uniform(0, 3);
      for (int i = 0; i < steps; ++i) Step(inner, true);
      std::vector<HloInstruction*> roots;
      for (const Shape& shape : result_shapes) {
        HloInstruction* value = Uniform(0, 3) ? PickWithDims(inner, shape.dimensions()) : nullptr;
        if (value == nullptr) value = ConstantArray(inner, shape.dimensions());
        roots.push_back(value);
      }
      branch->set_root_instruction(roots.size() == 1 ? roots[0]
                                                     : branch->AddInstruction(
                                                           HloInstruction::CreateTuple(roots)));
      computations.push_back(Finish(std::move(branch)));
    }
    auto conditional = HloInstruction::Create(HloOpcode::kConditional, result_shape, operands);
    for (HloComputation* computation : computations) {
      conditional->AppendCalledComputation(computation);
    }
    HloInstruction* result = ctx.computation->AddInstruction(std::move(conditional));
    for (HloInstruction* element : Elements(ctx, result)) ctx.pool.push_back(element);
  }

  void Call(Context& ctx) {
    const int arity = Uniform(1, 2);
    std::vector<HloInstruction*> operands;
    auto callee = std::make_unique<HloComputation>("callee");
    Context inner{callee.get(), {}, ctx.depth + 1};
    for (int i = 0; i < arity; ++i) {
      operands.push_back(Pick(ctx));
      inner.pool.push_back(callee->AddInstruction(HloInstruction::CreateParameter(
          i, operands.back()->shape(), absl::StrCat("in", i))));
    }
    const int steps = Uniform(1, 3);
    for (int i = 0; i < steps; ++i) Step(inner, true);
    HloInstruction* root = inner.pool.back();
    if (Uniform(0, 1)) {
      root = callee->AddInstruction(HloInstruction::CreateTuple({root, Pick(inner)}));
    }
    callee->set_root_instruction(root);
    HloComputation* computation = Finish(std::move(callee));
    HloInstruction* call = ctx.computation->AddInstruction(
        HloInstruction::CreateCall(root->shape(), operands, computation));
    for (HloInstruction* element : Elements(ctx, call)) ctx.pool.push_back(element);
  }

  const RandomControlFlowModuleOptions& options_;
  std::mt19937_64 rng_;
  PrimitiveType type_;
  HloModule* module_ = nullptr;
  HloComputation* adder_ = nullptr;
};

}  // namespace

std::unique_ptr<HloModule> MakeRandomControlFlowModule(
    const RandomControlFlowModuleOptions& options) {
  return Generator(options).Make();
}

}  // namespace tessera
