#include "backends/cpu/eigen_dot.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/cpu/eigen_dot_kernels.h"
#include "hlo/ir/float16.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/ir/hlo_opcode.h"
#include "hlo/ir/shape.h"
#include "runtime/thread_pool.h"

namespace tessera {
namespace cpu {

namespace eigen_dot_internal {
bool KernelsSupported() {
  static const bool supported = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
  }();
  return supported;
}
}  // namespace eigen_dot_internal

namespace {

using eigen_dot_internal::KernelsSupported;

// Below this many multiply-adds a product runs on the calling thread.
constexpr int64_t kMinParallelMacs = int64_t{64} * 64 * 64;
// Output panels handed to threads are multiples of this many rows/columns.
constexpr int64_t kPanelGranule = 16;

bool IsSupportedPair(PrimitiveType type, PrimitiveType output_type) {
  if (type == output_type) {
    return type == F32 || type == F64 || type == S32 || type == F16 || type == BF16;
  }
  return (type == F16 || type == BF16) && output_type == F32;
}

int64_t RoundUp(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

// The plain-loop product, for CPUs the AVX-512 kernels cannot run on.
template <typename T>
void ReferenceBlock(const T* a, const T* b, T* c, int64_t m, int64_t n, int64_t k, bool ta,
                    bool tb, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
  for (int64_t i = r0; i < r1; ++i) {
    for (int64_t j = c0; j < c1; ++j) {
      T acc = T(0);
      for (int64_t p = 0; p < k; ++p) {
        acc += (ta ? a[p * m + i] : a[i * k + p]) * (tb ? b[j * k + p] : b[p * n + j]);
      }
      c[i * n + j] = acc;
    }
  }
}

template <typename T>
void GemmBlock(const T* a, const T* b, T* c, int64_t m, int64_t n, int64_t k, bool ta, bool tb,
               int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
  if (!KernelsSupported()) {
    ReferenceBlock<T>(a, b, c, m, n, k, ta, tb, r0, r1, c0, c1);
  } else if constexpr (std::is_same_v<T, float>) {
    eigen_dot_internal::GemmBlockF32(a, b, c, m, n, k, ta, tb, r0, r1, c0, c1);
  } else if constexpr (std::is_same_v<T, double>) {
    eigen_dot_internal::GemmBlockF64(a, b, c, m, n, k, ta, tb, r0, r1, c0, c1);
  } else {
    static_assert(std::is_same_v<T, uint32_t>);
    eigen_dot_internal::GemmBlockU32(a, b, c, m, n, k, ta, tb, r0, r1, c0, c1);
  }
}

// The batched product with a row-major (not transposed) result, split over
// the pool: whole batch elements when there are at least as many as
// threads and they divide evenly, else panels of each output (along its
// longer side) as well.
template <typename T>
void BatchedGemm(int64_t batch, int64_t m, int64_t n, int64_t k, bool ta, bool tb, const T* a,
                 const T* b, T* c, runtime::ThreadPool* pool) {
  const int64_t a_stride = m * k, b_stride = k * n, c_stride = m * n;
  int threads = pool == nullptr ? 1 : pool->parallelism();
  if (batch * m * n * k < kMinParallelMacs) threads = 1;
  if (threads == 1) {
    for (int64_t i = 0; i < batch; ++i) {
      GemmBlock<T>(a + i * a_stride, b + i * b_stride, c + i * c_stride, m, n, k, ta, tb, 0, m,
                   0, n);
    }
    return;
  }
  int64_t panels = batch % threads == 0 ? 1 : threads;
  const bool split_rows = m >= n;
  const int64_t extent = split_rows ? m : n;
  const int64_t panel = std::max<int64_t>(
      1, std::min(extent, RoundUp((extent + panels - 1) / panels, kPanelGranule)));
  panels = (extent + panel - 1) / panel;
  pool->ParallelFor(batch * panels, /*block_size=*/1, [&](int64_t begin, int64_t end) {
    for (int64_t unit = begin; unit < end; ++unit) {
      const int64_t i = unit / panels;
      const int64_t lo = (unit % panels) * panel, hi = std::min(extent, lo + panel);
      GemmBlock<T>(a + i * a_stride, b + i * b_stride, c + i * c_stride, m, n, k, ta, tb,
                   split_rows ? lo : 0, split_rows ? hi : m, split_rows ? 0 : lo,
                   split_rows ? n : hi);
    }
  });
}

template <typename Half>
void Widen(const void* in, float* out, int64_t count) {
  const Half* src = static_cast<const Half*>(in);
  for (int64_t i = 0; i < count; ++i) out[i] = static_cast<float>(src[i]);
}

template <typename Half>
void Narrow(const float* in, void* out, int64_t count) {
  Half* dst = static_cast<Half*>(out);
  for (int64_t i = 0; i < count; ++i) dst[i] = Half(in[i]);
}

}  // namespace

std::string DotShape::ToString() const {
  return absl::StrCat(PrimitiveTypeName(type), "->", PrimitiveTypeName(output_type),
                      " batch=", batch, " m=", m, " n=", n, " k=", k,
                      lhs_transposed ? " lhs^T" : "", rhs_transposed ? " rhs^T" : "",
                      out_transposed ? " out^T" : "");
}

absl::Status CheckDotShape(const DotShape& shape) {
  if (!IsSupportedPair(shape.type, shape.output_type)) {
    return absl::UnimplementedError(absl::StrCat("dot of ", PrimitiveTypeName(shape.type),
                                                 " operands into ",
                                                 PrimitiveTypeName(shape.output_type),
                                                 " is not supported"));
  }
  if (shape.batch < 0 || shape.m < 0 || shape.n < 0 || shape.k < 0) {
    return absl::InvalidArgumentError(absl::StrCat("negative dot size: ", shape.ToString()));
  }
  return absl::OkStatus();
}

int64_t DotScratchBytes(const DotShape& shape) {
  if (shape.type != F16 && shape.type != BF16) return 0;
  int64_t floats = RoundUp(shape.batch * shape.m * shape.k, 16) +
                   RoundUp(shape.batch * shape.k * shape.n, 16);
  if (shape.output_type != F32) floats += RoundUp(shape.batch * shape.m * shape.n, 16);
  return floats * static_cast<int64_t>(sizeof(float));
}

absl::Status RunDot(const DotShape& shape, const void* lhs, const void* rhs, void* out,
                    runtime::ThreadPool* pool, void* scratch) {
  if (absl::Status status = CheckDotShape(shape); !status.ok()) return status;
  const int64_t out_count = shape.batch * shape.m * shape.n;
  if (out_count == 0) return absl::OkStatus();
  // A transposed result is the transposed product: out^T = op(rhs)^T op(lhs)^T.
  int64_t m = shape.m, n = shape.n;
  bool ta = shape.lhs_transposed, tb = shape.rhs_transposed;
  const void* a = lhs;
  const void* b = rhs;
  if (shape.out_transposed) {
    std::swap(m, n);
    std::swap(a, b);
    std::swap(ta, tb);
    ta = !ta;
    tb = !tb;
  }
  const int64_t k = shape.k, batch = shape.batch;
  switch (shape.type) {
    case F32:
      BatchedGemm<float>(batch, m, n, k, ta, tb, static_cast<const float*>(a),
                         static_cast<const float*>(b), static_cast<float*>(out), pool);
      return absl::OkStatus();
    case F64:
      BatchedGemm<double>(batch, m, n, k, ta, tb, static_cast<const double*>(a),
                          static_cast<const double*>(b), static_cast<double*>(out), pool);
      return absl::OkStatus();
    case S32:
      BatchedGemm<uint32_t>(batch, m, n, k, ta, tb, static_cast<const uint32_t*>(a),
                            static_cast<const uint32_t*>(b), static_cast<uint32_t*>(out), pool);
      return absl::OkStatus();
    case F16:
    case BF16: {
      std::unique_ptr<float[]> owned;
      float* buffer = static_cast<float*>(scratch);
      if (buffer == nullptr) {
        owned.reset(new float[DotScratchBytes(shape) / sizeof(float)]);
        buffer = owned.get();
      }
      const int64_t a_count = batch * m * k, b_count = batch * k * n;
      float* a32 = buffer;
      float* b32 = a32 + RoundUp(a_count, 16);
      float* c32 = shape.output_type == F32 ? static_cast<float*>(out)
                                             : b32 + RoundUp(b_count, 16);
      if (shape.type == F16) {
        Widen<half>(a, a32, a_count);
        Widen<half>(b, b32, b_count);
      } else {
        Widen<bfloat16>(a, a32, a_count);
        Widen<bfloat16>(b, b32, b_count);
      }
      BatchedGemm<float>(batch, m, n, k, ta, tb, a32, b32, c32, pool);
      if (shape.output_type == F16) Narrow<half>(c32, out, out_count);
      if (shape.output_type == BF16) Narrow<bfloat16>(c32, out, out_count);
      return absl::OkStatus();
    }
    default:
      return absl::InternalError("unreachable dot type");
  }
}

// ---------------------------------------------------------------------------
// PlanDot

namespace {

// What one physical dimension of an operand or of the result is.
enum class Role { kBatch, kContracting, kLhsFree, kRhsFree };
struct Tag {
  Role role;
  int64_t id;  // batch/contracting: pair index; free: the operand dimension
  bool operator==(const Tag&) const = default;
};

absl::Status Unimplemented(const HloInstruction& dot, absl::string_view why) {
  return absl::UnimplementedError(
      absl::StrCat("dot ", dot.name(), " does not map onto a GEMM: ", why));
}

// The dimensions of `shape` from major to minor, per its layout (row-major
// without one).
absl::StatusOr<std::vector<int64_t>> MajorToMinor(const HloInstruction& dot, const Shape& shape,
                                                  absl::string_view what) {
  const int64_t rank = shape.rank();
  std::vector<int64_t> order(rank);
  if (!shape.has_layout()) {
    for (int64_t d = 0; d < rank; ++d) order[d] = d;
    return order;
  }
  const Layout& layout = shape.layout();
  if (!layout.tiles.empty()) {
    return Unimplemented(dot, absl::StrCat(what, " has a tiled layout ", layout.ToString()));
  }
  if (layout.element_size_in_bits != 0 &&
      layout.element_size_in_bits != BitWidth(shape.element_type())) {
    return Unimplemented(dot, absl::StrCat(what, " has packed elements ", layout.ToString()));
  }
  if (static_cast<int64_t>(layout.minor_to_major.size()) != rank) {
    return absl::InvalidArgumentError(absl::StrCat("dot ", dot.name(), ": ", what, " layout ",
                                                   layout.ToString(), " is not of rank ", rank));
  }
  std::vector<bool> seen(rank, false);
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t d = layout.minor_to_major[rank - 1 - i];
    if (d < 0 || d >= rank || seen[d]) {
      return absl::InvalidArgumentError(absl::StrCat("dot ", dot.name(), ": ", what, " layout ",
                                                     layout.ToString(),
                                                     " is not a permutation"));
    }
    seen[d] = true;
    order[i] = d;
  }
  return order;
}

// Splits `tags` into its leading batch tags and the rest; false when a
// batch tag follows a non-batch one.
bool SplitBatch(const std::vector<Tag>& tags, std::vector<Tag>* batch, std::vector<Tag>* rest) {
  for (const Tag& tag : tags) {
    if (tag.role == Role::kBatch) {
      if (!rest->empty()) return false;
      batch->push_back(tag);
    } else {
      rest->push_back(tag);
    }
  }
  return true;
}

// If `tags` is first-role tags then second-role tags (either group may be
// empty), fills them and returns true.
bool SplitTwo(const std::vector<Tag>& tags, Role first, Role second, std::vector<Tag>* a,
              std::vector<Tag>* b) {
  for (const Tag& tag : tags) {
    if (tag.role == first) {
      if (!b->empty()) return false;
      a->push_back(tag);
    } else if (tag.role == second) {
      b->push_back(tag);
    } else {
      return false;
    }
  }
  return true;
}

std::string TagsString(const std::vector<Tag>& tags) {
  return absl::StrJoin(tags, ",", [](std::string* out, const Tag& tag) {
    const char* role = tag.role == Role::kBatch         ? "batch"
                       : tag.role == Role::kContracting ? "contracting"
                       : tag.role == Role::kLhsFree     ? "lhs-free"
                                                        : "rhs-free";
    absl::StrAppend(out, role, tag.id);
  });
}

}  // namespace

absl::StatusOr<DotShape> PlanDot(const HloInstruction& dot) {
  if (dot.opcode() != HloOpcode::kDot) {
    return absl::InvalidArgumentError(absl::StrCat(dot.name(), " is not a dot"));
  }
  if (dot.operand_count() != 2 || !dot.attrs().dot_dimension_numbers.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("dot ", dot.name(), " needs two operands and dimension numbers"));
  }
  const Shape& ls = dot.operand(0)->shape();
  const Shape& rs = dot.operand(1)->shape();
  const Shape& os = dot.shape();
  if (!ls.IsArray() || !rs.IsArray() || !os.IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat("dot ", dot.name(), " is not on arrays"));
  }
  if (!ls.is_static() || !rs.is_static() || !os.is_static()) {
    return Unimplemented(dot, "dynamic dimensions");
  }
  if (ls.element_type() != rs.element_type()) {
    return Unimplemented(dot, absl::StrCat("mixed operand types ",
                                           PrimitiveTypeName(ls.element_type()), " and ",
                                           PrimitiveTypeName(rs.element_type())));
  }
  DotShape plan;
  plan.type = ls.element_type();
  plan.output_type = os.element_type();
  if (!IsSupportedPair(plan.type, plan.output_type)) {
    return Unimplemented(dot, absl::StrCat(PrimitiveTypeName(plan.type), " operands into ",
                                           PrimitiveTypeName(plan.output_type)));
  }

  const DotDimensionNumbers& dnums = dot.dot_dimension_numbers();
  const int64_t nb = dnums.lhs_batch_dimensions.size();
  const int64_t nc = dnums.lhs_contracting_dimensions.size();
  if (static_cast<int64_t>(dnums.rhs_batch_dimensions.size()) != nb ||
      static_cast<int64_t>(dnums.rhs_contracting_dimensions.size()) != nc) {
    return absl::InvalidArgumentError(
        absl::StrCat("dot ", dot.name(), ": unpaired batch or contracting dimensions"));
  }
  // Tags of each operand's logical dimensions.
  auto tag_operand = [&](const Shape& shape, const std::vector<int64_t>& batch,
                         const std::vector<int64_t>& contracting,
                         Role free) -> absl::StatusOr<std::vector<Tag>> {
    std::vector<Tag> tags(shape.rank(), Tag{free, -1});
    std::vector<bool> used(shape.rank(), false);
    auto mark = [&](int64_t d, Role role, int64_t id) {
      if (d < 0 || d >= shape.rank() || used[d]) return false;
      used[d] = true;
      tags[d] = Tag{role, id};
      return true;
    };
    for (int64_t i = 0; i < nb; ++i) {
      if (!mark(batch[i], Role::kBatch, i)) {
        return absl::InvalidArgumentError(
            absl::StrCat("dot ", dot.name(), ": bad batch dimension ", batch[i]));
      }
    }
    for (int64_t i = 0; i < nc; ++i) {
      if (!mark(contracting[i], Role::kContracting, i)) {
        return absl::InvalidArgumentError(
            absl::StrCat("dot ", dot.name(), ": bad contracting dimension ", contracting[i]));
      }
    }
    for (int64_t d = 0; d < shape.rank(); ++d) {
      if (!used[d]) tags[d].id = d;
    }
    return tags;
  };
  auto lhs_tags_or = tag_operand(ls, dnums.lhs_batch_dimensions,
                                 dnums.lhs_contracting_dimensions, Role::kLhsFree);
  if (!lhs_tags_or.ok()) return lhs_tags_or.status();
  auto rhs_tags_or = tag_operand(rs, dnums.rhs_batch_dimensions,
                                 dnums.rhs_contracting_dimensions, Role::kRhsFree);
  if (!rhs_tags_or.ok()) return rhs_tags_or.status();
  const std::vector<Tag>& lhs_tags = *lhs_tags_or;
  const std::vector<Tag>& rhs_tags = *rhs_tags_or;

  // The result's logical dimensions: batch, lhs free, rhs free; and sizes.
  std::vector<Tag> out_tags;
  std::vector<int64_t> out_dims;
  plan.batch = plan.m = plan.n = plan.k = 1;
  for (int64_t i = 0; i < nb; ++i) {
    const int64_t size = ls.dimensions(dnums.lhs_batch_dimensions[i]);
    if (size != rs.dimensions(dnums.rhs_batch_dimensions[i])) {
      return absl::InvalidArgumentError(
          absl::StrCat("dot ", dot.name(), ": batch dimension ", i, " sizes differ"));
    }
    out_tags.push_back(Tag{Role::kBatch, i});
    out_dims.push_back(size);
    plan.batch *= size;
  }
  for (int64_t i = 0; i < nc; ++i) {
    const int64_t size = ls.dimensions(dnums.lhs_contracting_dimensions[i]);
    if (size != rs.dimensions(dnums.rhs_contracting_dimensions[i])) {
      return absl::InvalidArgumentError(
          absl::StrCat("dot ", dot.name(), ": contracting dimension ", i, " sizes differ"));
    }
    plan.k *= size;
  }
  for (int64_t d = 0; d < ls.rank(); ++d) {
    if (lhs_tags[d].role != Role::kLhsFree) continue;
    out_tags.push_back(lhs_tags[d]);
    out_dims.push_back(ls.dimensions(d));
    plan.m *= ls.dimensions(d);
  }
  for (int64_t d = 0; d < rs.rank(); ++d) {
    if (rhs_tags[d].role != Role::kRhsFree) continue;
    out_tags.push_back(rhs_tags[d]);
    out_dims.push_back(rs.dimensions(d));
    plan.n *= rs.dimensions(d);
  }
  if (out_dims != os.dimensions()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dot ", dot.name(), ": result ", os.ToString(), " does not match its operands ",
        ls.ToString(), " and ", rs.ToString()));
  }

  // Empty results, and empty contractions (a zero fill), do not depend on
  // any layout.
  if (plan.batch * plan.m * plan.n == 0 || plan.k == 0) {
    const int64_t count = plan.batch * plan.m * plan.n;
    plan.batch = 1;
    plan.m = count;
    plan.n = 1;
    return plan;
  }

  // Physical orders as tags, dimensions of size 1 dropped.
  auto physical = [&](const Shape& shape, const std::vector<Tag>& tags,
                      absl::string_view what) -> absl::StatusOr<std::vector<Tag>> {
    auto order = MajorToMinor(dot, shape, what);
    if (!order.ok()) return order.status();
    std::vector<Tag> result;
    for (int64_t d : *order) {
      if (shape.dimensions(d) != 1) result.push_back(tags[d]);
    }
    return result;
  };
  auto lhs_phys = physical(ls, lhs_tags, "lhs");
  if (!lhs_phys.ok()) return lhs_phys.status();
  auto rhs_phys = physical(rs, rhs_tags, "rhs");
  if (!rhs_phys.ok()) return rhs_phys.status();
  auto out_phys = physical(os, out_tags, "result");
  if (!out_phys.ok()) return out_phys.status();

  std::vector<Tag> lb, lrest, rb, rrest, ob, orest;
  if (!SplitBatch(*lhs_phys, &lb, &lrest) || !SplitBatch(*rhs_phys, &rb, &rrest) ||
      !SplitBatch(*out_phys, &ob, &orest)) {
    return Unimplemented(dot, absl::StrCat("batch dimensions are not outermost (lhs ",
                                           TagsString(*lhs_phys), "; rhs ",
                                           TagsString(*rhs_phys), "; result ",
                                           TagsString(*out_phys), ")"));
  }
  if (lb != ob || rb != ob) {
    return Unimplemented(dot, absl::StrCat("batch dimensions in different orders (lhs ",
                                           TagsString(lb), "; rhs ", TagsString(rb),
                                           "; result ", TagsString(ob), ")"));
  }
  std::vector<Tag> out_l, out_r;
  if (SplitTwo(orest, Role::kLhsFree, Role::kRhsFree, &out_l, &out_r)) {
    plan.out_transposed = false;
  } else {
    out_l.clear();
    out_r.clear();
    if (!SplitTwo(orest, Role::kRhsFree, Role::kLhsFree, &out_r, &out_l)) {
      return Unimplemented(dot, absl::StrCat("result interleaves lhs and rhs free dimensions (",
                                             TagsString(orest), ")"));
    }
    plan.out_transposed = true;
  }
  std::vector<Tag> lhs_free, lhs_contracting;
  if (SplitTwo(lrest, Role::kLhsFree, Role::kContracting, &lhs_free, &lhs_contracting)) {
    plan.lhs_transposed = false;
  } else {
    lhs_free.clear();
    lhs_contracting.clear();
    if (!SplitTwo(lrest, Role::kContracting, Role::kLhsFree, &lhs_contracting, &lhs_free)) {
      return Unimplemented(dot, absl::StrCat("lhs interleaves free and contracting dimensions (",
                                             TagsString(lrest), ")"));
    }
    plan.lhs_transposed = true;
  }
  std::vector<Tag> rhs_free, rhs_contracting;
  if (SplitTwo(rrest, Role::kContracting, Role::kRhsFree, &rhs_contracting, &rhs_free)) {
    plan.rhs_transposed = false;
  } else {
    rhs_free.clear();
    rhs_contracting.clear();
    if (!SplitTwo(rrest, Role::kRhsFree, Role::kContracting, &rhs_free, &rhs_contracting)) {
      return Unimplemented(dot, absl::StrCat("rhs interleaves free and contracting dimensions (",
                                             TagsString(rrest), ")"));
    }
    plan.rhs_transposed = true;
  }
  if (lhs_contracting != rhs_contracting) {
    return Unimplemented(dot, absl::StrCat("contracting dimensions in different orders (lhs ",
                                           TagsString(lhs_contracting), "; rhs ",
                                           TagsString(rhs_contracting), ")"));
  }
  if (lhs_free != out_l) {
    return Unimplemented(dot, absl::StrCat("lhs free dimensions in a different order (lhs ",
                                           TagsString(lhs_free), "; result ",
                                           TagsString(out_l), ")"));
  }
  if (rhs_free != out_r) {
    return Unimplemented(dot, absl::StrCat("rhs free dimensions in a different order (rhs ",
                                           TagsString(rhs_free), "; result ",
                                           TagsString(out_r), ")"));
  }
  return plan;
}

}  // namespace cpu
}  // namespace tessera
