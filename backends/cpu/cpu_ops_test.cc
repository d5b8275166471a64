// The CPU backend's kernels and thunks for indexing, windowed, variadic
// and ordering ops against the reference evaluator: pad, concatenate,
// dynamic slices, reduce-window, gather, scatter, variadic reduce, sort,
// top-k, rng-bit-generator (bit for bit with the evaluator's results, no
// fallback).
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "backends/cpu/cpu_compiler.h"
#include "backends/cpu/cpu_test_util.h"
#include "gtest/gtest.h"
#include "hlo/ir/literal.h"
#include "hlo/ir/status_macros.h"
#include "hlo/parser/hlo_parser.h"

namespace tessera {
namespace cpu {
namespace {

using namespace testing;  // NOLINT: the CPU test helpers

// Pad (edge, negative and interior), concatenate, dynamic-slice and
// dynamic-update-slice (start indices clamped as XLA does, signed and
// unsigned, the update written in place over its base) in kernels, fused
// and alone, on several element types: bit for bit with the evaluator.
TEST(CpuOpsTest, IndexingOpsRunNatively) {
  const std::string text = R"(
HloModule indexing
ENTRY main {
  x = f32[5,7] parameter(0)
  y = f32[5,3] parameter(1)
  i = s32[] parameter(2)
  j = u32[] parameter(3)
  k = s8[6,4] parameter(4)
  zero = f32[] constant(0.5)
  padded = f32[12,6] pad(x, zero), padding=2_1_1x-1_0_0
  cat = f32[5,17] concatenate(x, y, x), dimensions={1}
  e = f32[5,17] exponential(cat)
  ds = f32[3,4] dynamic-slice(e, i, i), dynamic_slice_sizes={3,4}
  ds_far = f32[2,2] dynamic-slice(x, j, j), dynamic_slice_sizes={2,2}
  neg = f32[5,7] negate(x)
  upd = f32[5,7] dynamic-update-slice(neg, ds_far, i, i)
  one = s8[] constant(1)
  kb = s8[2,4] broadcast(one), dimensions={}
  kz = s32[] constant(0)
  kupd = s8[6,4] dynamic-update-slice(k, kb, i, kz)
  ROOT t = (f32[12,6], f32[3,4], f32[5,7], s8[6,4], f32[2,2]) tuple(padded, ds, upd, kupd, ds_far)
}
)";
  for (auto [i, j] : {std::pair<int32_t, uint32_t>{1, 2}, {-3, 100}, {4, 0}, {100, 6}}) {
    SCOPED_TRACE(absl::StrCat("i=", i, " j=", j));
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    ASSERT_TRUE(module.ok()) << module.status();
    std::vector<Literal> arguments = RandomArguments(**module, 5);
    arguments[2] = Literal::CreateR0<int32_t>(i);
    arguments[3] = Literal::CreateR0<uint32_t>(j);
    Counts counts;
    CheckModule(text, std::move(arguments), &counts, LibmMath());
    EXPECT_EQ(counts.fallback, 0) << Fallbacks(text, LibmMath());
  }
}

// Reduce-window: pooling with strides, padding (skipped, not folded),
// window and base dilation, f32 and s32, fused with an epilogue: bit for
// bit with the evaluator.
TEST(CpuOpsTest, ReduceWindowsRunNatively) {
  const std::string text = R"(
HloModule windows
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
iadd {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
ENTRY main {
  x = f32[2,9,11,3] parameter(0)
  k = s32[13,7] parameter(1)
  ninf = f32[] constant(-inf)
  pool = f32[2,5,6,3] reduce-window(x, ninf), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, to_apply=max
  zero = f32[] constant(0)
  avg = f32[2,9,11,3] reduce-window(x, zero), window={size=1x3x3x1 pad=0_0x1_1x1_1x0_0}, to_apply=add
  ninth = f32[] constant(0.111111)
  nb = f32[2,9,11,3] broadcast(ninth), dimensions={}
  scaled = f32[2,9,11,3] multiply(avg, nb)
  one = s32[] constant(1)
  dil = s32[13,5] reduce-window(k, one), window={size=3x2 stride=2x1 pad=2_2x0_1 rhs_dilate=2x3 lhs_dilate=2x1}, to_apply=iadd
  ROOT t = (f32[2,5,6,3], f32[2,9,11,3], s32[13,5]) tuple(pool, scaled, dil)
}
)";
  Counts counts;
  CheckModule(text, {}, &counts, LibmMath());
  EXPECT_EQ(counts.fallback, 0) << Fallbacks(text, LibmMath());
}

// Gather: an embedding lookup (indices out of range clamp), a 2-D index
// vector with an implicit index_vector_dim elsewhere, and batching
// dimensions; bit for bit with the evaluator.
TEST(CpuOpsTest, GathersRunNatively) {
  const std::string text = R"(
HloModule gathers
ENTRY main {
  table = f32[50,16] parameter(0)
  ids = s32[9] parameter(1)
  rows = f32[9,16] gather(table, ids), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,16}
  two = f32[] constant(2)
  tb = f32[9,16] broadcast(two), dimensions={}
  scaled = f32[9,16] multiply(rows, tb)
  img = f32[10,12] parameter(2)
  corners = u32[4,2] parameter(3)
  patches = f32[4,3,5] gather(img, corners), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={3,5}
  batched = f32[3,8,6] parameter(4)
  which = s32[3,4] parameter(5)
  picked = f32[3,4,6] gather(batched, which), offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1,6}
  ROOT t = (f32[9,16], f32[4,3,5], f32[3,4,6]) tuple(scaled, patches, picked)
}
)";
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> arguments = RandomArguments(**module, 3);
  arguments[1] = Literal::CreateR1<int32_t>({0, 49, 50, -1, 7, 1000, 3, 3, -100000});
  arguments[3] = Literal::CreateFromVector<uint32_t>({4, 2}, {0, 0, 9, 11, 4000000000u, 3, 5, 6});
  std::vector<int32_t> which(12);
  for (int i = 0; i < 12; ++i) which[i] = (i * 5) % 11 - 1;  // -1..9: some clamp
  arguments[5] = Literal::CreateFromVector<int32_t>({3, 4}, which);
  Counts counts;
  CheckModule(text, std::move(arguments), &counts, LibmMath());
  EXPECT_EQ(counts.fallback, 0) << Fallbacks(text, LibmMath());
}

// Scatter: an embedding gradient (scatter-add of rows, repeated and
// out-of-range indices), a non-commutative update (last write wins: the
// evaluator's order), batching dimensions, and an in-place update of a
// loop-carried buffer; bit for bit with the evaluator.
TEST(CpuOpsTest, ScattersRunNatively) {
  const std::string text = R"(
HloModule scatters
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
second {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] subtract(b, a)
}
ENTRY main {
  table = f32[20,8] parameter(0)
  ids = s32[11] parameter(1)
  grads = f32[11,8] parameter(2)
  zero = f32[] constant(0)
  zb = f32[20,8] broadcast(zero), dimensions={}
  acc = f32[20,8] scatter(zb, ids, grads), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  moved = f32[20,8] add(table, acc)
  base = s32[6,5] parameter(3)
  where = s32[4,2] parameter(4)
  vals = s32[4] parameter(5)
  put = s32[6,5] scatter(base, where, vals), update_window_dims={}, inserted_window_dims={0,1}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, to_apply=second
  batched = f32[3,7,2] parameter(6)
  rows = s32[3,4] parameter(7)
  bup = f32[3,4,2] parameter(8)
  bres = f32[3,7,2] scatter(batched, rows, bup), update_window_dims={2}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0}, index_vector_dim=2, to_apply=add
  ROOT t = (f32[20,8], s32[6,5], f32[3,7,2]) tuple(moved, put, bres)
}
)";
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> arguments = RandomArguments(**module, 9);
  arguments[1] = Literal::CreateR1<int32_t>({3, 3, 0, 19, 20, -1, 7, 3, 12, 19, 5});
  arguments[4] = Literal::CreateFromVector<int32_t>({4, 2}, {1, 1, 5, 4, 1, 1, 6, 0});
  std::vector<int32_t> rows(12);
  for (int i = 0; i < 12; ++i) rows[i] = (i * 3) % 9 - 1;  // -1..7: some skipped
  arguments[7] = Literal::CreateFromVector<int32_t>({3, 4}, rows);
  Counts counts;
  CheckModule(text, std::move(arguments), &counts, LibmMath());
  EXPECT_EQ(counts.fallback, 0) << Fallbacks(text, LibmMath());
}

// Variadic reduces: argmax over rows and argmin over columns with JAX's
// NaN-aware reducers (first index on ties), a sum with a count, and a
// scalar result; bit for bit with the evaluator.
// JAX's arg-reducer: keeps the accumulator when it compares `direction`
// to the element or is NaN, and on ties the lower index.
std::string ArgReducer(absl::string_view name, absl::string_view direction) {
  return absl::StrReplaceAll(R"(
NAME {
  a = f32[] parameter(0)
  ai = s32[] parameter(1)
  b = f32[] parameter(2)
  bi = s32[] parameter(3)
  better = pred[] compare(a, b), direction=DIRECTION
  isnan = pred[] compare(a, a), direction=NE
  keep = pred[] or(better, isnan)
  eq = pred[] compare(a, b), direction=EQ
  first = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(eq, first)
  take = pred[] or(keep, tie)
  v = f32[] select(take, a, b)
  i = s32[] select(take, ai, bi)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
)", {{"NAME", name}, {"DIRECTION", direction}});
}

TEST(CpuOpsTest, VariadicReducesRunNatively) {
  const std::string text = absl::StrReplaceAll(R"(
HloModule variadic
$ARGMAX
$ARGMIN
sumcount {
  a = f32[] parameter(0)
  n = s32[] parameter(1)
  b = f32[] parameter(2)
  m = s32[] parameter(3)
  s = f32[] add(a, b)
  c = s32[] add(n, m)
  ROOT t = (f32[], s32[]) tuple(s, c)
}
ENTRY main {
  x = f32[37,53] parameter(0)
  cols = s32[37,53] iota(), iota_dimension=1
  rows = s32[37,53] iota(), iota_dimension=0
  ninf = f32[] constant(-inf)
  pinf = f32[] constant(inf)
  zero = s32[] constant(0)
  fzero = f32[] constant(0)
  one = s32[] constant(1)
  ones = s32[37,53] broadcast(one), dimensions={}
  amax = (f32[37], s32[37]) reduce(x, cols, ninf, zero), dimensions={1}, to_apply=argmax
  amin = (f32[53], s32[53]) reduce(x, rows, pinf, zero), dimensions={0}, to_apply=argmin
  all = (f32[], s32[]) reduce(x, ones, fzero, zero), dimensions={0,1}, to_apply=sumcount
  v0 = f32[37] get-tuple-element(amax), index=0
  i0 = s32[37] get-tuple-element(amax), index=1
  i1 = s32[53] get-tuple-element(amin), index=1
  s = f32[] get-tuple-element(all), index=0
  c = s32[] get-tuple-element(all), index=1
  y = f32[5,37,13] parameter(1)
  ys = s32[5,37,13] iota(), iota_dimension=1
  mid = (f32[5,13]{0,1}, s32[5,13]{0,1}) reduce(y, ys, ninf, zero), dimensions={1}, to_apply=argmax
  i2 = s32[5,13]{0,1} get-tuple-element(mid), index=1
  ROOT t = (f32[37], s32[37], s32[53], f32[], s32[], s32[5,13]{0,1}) tuple(v0, i0, i1, s, c, i2)
}
)", {{"$ARGMAX", ArgReducer("argmax", "GT")}, {"$ARGMIN", ArgReducer("argmin", "LT")}});
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> arguments = RandomArguments(**module, 4);
  // Ties and NaNs.
  for (int i = 0; i < 37 * 53; i += 17) arguments[0].data<float>()[i] = 0.5f;
  arguments[0].data<float>()[100] = std::nanf("");
  Counts counts;
  CheckModule(text, std::move(arguments), &counts, LibmMath());
  EXPECT_EQ(counts.fallback, 0) << Fallbacks(text, LibmMath());
}

// Sorts by keys (sort_keys.h): jnp.sort's comparator (NaNs and -0
// canonicalized, then a total order) ascending and descending along rows
// long enough for the radix sort, an argsort carrying an iota, a
// descending u8 sort along a major dimension and an s64 sort; element for
// element with the evaluator.
TEST(CpuOpsTest, SortsByKeysAsTheEvaluator) {
  const std::string jax_order = R"(
  ne.2 = pred[] compare(a, a), direction=NE
  qnan = f32[] constant(nan)
  zero = f32[] constant(0)
  eq.2 = pred[] compare(a, zero), direction=EQ
  s.4 = f32[] select(eq.2, zero, a)
  s.5 = f32[] select(ne.2, qnan, s.4)
  ne.3 = pred[] compare(b, b), direction=NE
  eq.3 = pred[] compare(b, zero), direction=EQ
  s.6 = f32[] select(eq.3, zero, b)
  s.7 = f32[] select(ne.3, qnan, s.6))";
  const std::string text = absl::StrCat(R"(
HloModule sorts
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1))",
                                        jax_order, R"(
  ROOT lt = pred[] compare(s.5, s.7), direction=LT, type=TOTALORDER
}
greater_carrying {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3))",
                                        jax_order, R"(
  ROOT gt = pred[] compare(s.5, s.7), direction=GT, type=TOTALORDER
}
u8_greater {
  a = u8[] parameter(0)
  b = u8[] parameter(1)
  ROOT gt = pred[] compare(a, b), direction=GT
}
s64_less {
  a = s64[] parameter(0)
  b = s64[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY main {
  x = f32[3,700] parameter(0)
  up = f32[3,700] sort(x), dimensions={1}, is_stable=true, to_apply=less
  idx = s32[3,700] iota(), iota_dimension=1
  down = (f32[3,700], s32[3,700]) sort(x, idx), dimensions={1}, is_stable=true, to_apply=greater_carrying
  dv = f32[3,700] get-tuple-element(down), index=0
  di = s32[3,700] get-tuple-element(down), index=1
  y = u8[400,3] parameter(1)
  ys = u8[400,3] sort(y), dimensions={0}, to_apply=u8_greater
  z = s64[300] parameter(2)
  zs = s64[300] sort(z), dimensions={0}, to_apply=s64_less
  ROOT t = (f32[3,700], f32[3,700], s32[3,700], u8[400,3], s64[300]) tuple(up, dv, di, ys, zs)
}
)");
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> arguments = RandomArguments(**module, 8);
  // Ties, signed zeros and NaNs of both signs among the keys.
  float* x = arguments[0].data<float>().data();
  for (int i = 0; i < 3 * 700; i += 7) x[i] = 0.25f;
  for (int i = 1; i < 3 * 700; i += 50) {
    x[i] = -0.0f;
    x[i + 1] = 0.0f;
    x[i + 2] = std::nanf("");
    x[i + 3] = -std::nanf("");
    x[i + 4] = -INFINITY;
  }
  Counts counts;
  CheckModule(text, std::move(arguments), &counts, LibmMath());
  EXPECT_EQ(counts.fallback, 0) << Fallbacks(text, LibmMath());
}

// Sort: JAX's NaN-aware total order on f32 keys carrying s32 values,
// along a minor and a major dimension, descending s32, pred keys, a
// column-major operand and a comparator that is not a strict weak order;
// element for element with the evaluator (same merge sort).
TEST(CpuOpsTest, SortsRunNatively) {
  const std::string text = R"(
HloModule sorts
total_less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ai = s32[] parameter(2)
  bi = s32[] parameter(3)
  ab = s32[] bitcast-convert(a)
  bb = s32[] bitcast-convert(b)
  zero = s32[] constant(0)
  mask = s32[] constant(2147483647)
  an = pred[] compare(ab, zero), direction=LT
  bn = pred[] compare(bb, zero), direction=LT
  ax = s32[] xor(ab, mask)
  bx = s32[] xor(bb, mask)
  ak = s32[] select(an, ax, ab)
  bk = s32[] select(bn, bx, bb)
  ROOT lt = pred[] compare(ak, bk), direction=LT
}
greater {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT gt = pred[] compare(a, b), direction=GT
}
pred_less {
  a = pred[] parameter(0)
  b = pred[] parameter(1)
  na = pred[] not(a)
  ROOT lt = pred[] and(na, b)
}
not_an_order {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT le = pred[] compare(a, b), direction=LE
}
ENTRY main {
  x = f32[9,40] parameter(0)
  idx = s32[9,40] iota(), iota_dimension=1
  rows = (f32[9,40], s32[9,40]) sort(x, idx), dimensions={1}, is_stable=true, to_apply=total_less
  cols = (f32[9,40], s32[9,40]) sort(x, idx), dimensions={0}, to_apply=total_less
  k = s32[33,5]{0,1} parameter(1)
  down = s32[33,5]{0,1} sort(k), dimensions={0}, to_apply=greater
  p = pred[17] parameter(2)
  ps = pred[17] sort(p), dimensions={0}, to_apply=pred_less
  y = f32[21] parameter(3)
  odd = f32[21] sort(y), dimensions={0}, to_apply=not_an_order
  r0 = f32[9,40] get-tuple-element(rows), index=0
  r1 = s32[9,40] get-tuple-element(rows), index=1
  c1 = s32[9,40] get-tuple-element(cols), index=1
  ROOT t = (f32[9,40], s32[9,40], s32[9,40], s32[33,5]{0,1}, pred[17], f32[21]) tuple(r0, r1, c1, down, ps, odd)
}
)";
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> arguments = RandomArguments(**module, 6);
  // Ties, signed zeros and NaNs among the keys; repeated values in y.
  float* x = arguments[0].data<float>().data();
  for (int i = 0; i < 9 * 40; i += 7) x[i] = 0.25f;
  x[3] = -0.0f;
  x[4] = 0.0f;
  x[5] = std::nanf("");
  x[6] = -std::nanf("");
  for (int i = 0; i < 21; ++i) arguments[3].data<float>()[i] = static_cast<float>(i % 4);
  Counts counts;
  CheckModule(text, std::move(arguments), &counts, LibmMath());
  EXPECT_EQ(counts.fallback, 0) << Fallbacks(text, LibmMath());
}

// topk over float8 rows (few distinct values: many ties), largest and
// smallest, as the evaluator orders them.
TEST(CpuOpsTest, Float8TopKRunsNatively) {
  const std::string text = R"(
HloModule f8_topk
ENTRY main {
  a = f8e4m3fn[5,12] parameter(0)
  b = f8e4m3fnuz[3,40] parameter(1)
  ta = (f8e4m3fn[5,4], s32[5,4]) topk(a), k=4, largest=true
  tb = (f8e4m3fnuz[3,20], s32[3,20]) topk(b), k=20, largest=false
  a0 = f8e4m3fn[5,4] get-tuple-element(ta), index=0
  a1 = s32[5,4] get-tuple-element(ta), index=1
  b0 = f8e4m3fnuz[3,20] get-tuple-element(tb), index=0
  b1 = s32[3,20] get-tuple-element(tb), index=1
  ROOT t = (f8e4m3fn[5,4], s32[5,4], f8e4m3fnuz[3,20], s32[3,20]) tuple(a0, a1, b0, b1)
}
)";
  CheckNativeModule(text);
}

// topk: largest and smallest, ties (lower index first), signed zeros and
// NaNs (a total order), f32, s32 and bf16, k = 0 and k = the row length,
// k up to kTopKInsertionMax (kept in order as the row streams by) and
// beyond (a partial sort).
TEST(CpuOpsTest, TopKRunsNatively) {
  const std::string text = R"(
HloModule topks
ENTRY main {
  x = f32[6,50] parameter(0)
  i = s32[3,4,10] parameter(1)
  h = bf16[5,9] parameter(2)
  w = f32[4,130] parameter(3)
  top = (f32[6,7], s32[6,7]) topk(x), k=7, largest=true
  wide = (f32[4,80], s32[4,80]) topk(w), k=80, largest=false
  bottom = (f32[6,50], s32[6,50]) topk(x), k=50, largest=false
  itop = (s32[3,4,3], s32[3,4,3]) topk(i), k=3, largest=true
  htop = (bf16[5,2], s32[5,2]) topk(h), k=2, largest=true
  none = (f32[6,0], s32[6,0]) topk(x), k=0, largest=true
  t0 = f32[6,7] get-tuple-element(top), index=0
  t1 = s32[6,7] get-tuple-element(top), index=1
  b0 = f32[6,50] get-tuple-element(bottom), index=0
  b1 = s32[6,50] get-tuple-element(bottom), index=1
  i1 = s32[3,4,3] get-tuple-element(itop), index=1
  h0 = bf16[5,2] get-tuple-element(htop), index=0
  n1 = s32[6,0] get-tuple-element(none), index=1
  w0 = f32[4,80] get-tuple-element(wide), index=0
  w1 = s32[4,80] get-tuple-element(wide), index=1
  ROOT t = (f32[6,7], s32[6,7], f32[6,50], s32[6,50], s32[3,4,3], bf16[5,2], s32[6,0], f32[4,80], s32[4,80]) tuple(t0, t1, b0, b1, i1, h0, n1, w0, w1)
}
)";
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> arguments = RandomArguments(**module, 8);
  float* x = arguments[0].data<float>().data();
  for (int j = 0; j < 300; j += 11) x[j] = 0.75f;
  x[1] = std::nanf("");
  x[2] = -std::nanf("");
  x[3] = -0.0f;
  x[4] = 0.0f;
  for (int j = 0; j < 120; ++j) arguments[1].data<int32_t>()[j] = j % 5;
  float* w = arguments[3].data<float>().data();
  for (int j = 0; j < 520; j += 7) w[j] = 0.5f;
  Counts counts;
  CheckModule(text, std::move(arguments), &counts, LibmMath());
  EXPECT_EQ(counts.fallback, 0) << Fallbacks(text, LibmMath());
}

// rng-bit-generator (rng_bit_generator_thunk.h): ThreeFry and Philox (and
// RNG_DEFAULT, which is Philox), both state lengths, 8 to 64-bit outputs,
// every ThreeFry layout (an even split dimension, an odd one, short and
// long rows behind it, a scalar, an empty output), sizes split over
// threads, and states whose counters wrap (64-bit, and 128-bit for
// Philox): bit for bit the evaluator's bits and new states.
TEST(CpuOpsTest, RngBitGeneratorRunsNatively) {
  struct Generator {
    const char* algorithm;
    int state;  // parameter 0 (u64[2]) or 1 (u64[3])
    const char* bits;
  };
  const std::vector<Generator> generators = {
      {"rng_three_fry", 0, "u32[6,50]"},   {"rng_three_fry", 0, "u32[5,7,130]"},
      {"rng_three_fry", 0, "u8[3,5]"},     {"rng_three_fry", 0, "u16[7,3,5]"},
      {"rng_three_fry", 0, "u64[9]"},      {"rng_three_fry", 0, "u32[]"},
      {"rng_three_fry", 0, "u32[0,4]"},    {"rng_three_fry", 0, "s8[2,37]"},
      {"rng_three_fry", 0, "u32[64,520]"}, {"rng_three_fry", 0, "u16[33,1001]"},
      {"rng_three_fry", 0, "u8[20000,3]"}, {"rng_three_fry", 0, "u64[20001]"},
      {"rng_philox", 1, "u32[7,9]"},       {"rng_philox", 1, "u64[5]"},
      {"rng_philox", 1, "u8[33]"},         {"rng_philox", 1, "s16[2,3]"},
      {"rng_philox", 1, "u32[70001]"},     {"rng_philox", 1, "u64[40001]"},
      {"rng_philox", 0, "u32[10]"},        {"rng_default", 0, "u16[5]"},
      {"rng_three_fry", 1, "u32[4]"},
  };
  std::string body, root_shapes, root_operands;
  for (size_t k = 0; k < generators.size(); ++k) {
    const Generator& g = generators[k];
    const char* state = g.state == 0 ? "u64[2]" : "u64[3]";
    absl::StrAppend(&body, "  r", k, " = (", state, ", ", g.bits, ") rng-bit-generator(p", g.state,
                    "), algorithm=", g.algorithm, "\n", "  state", k, " = ", state,
                    " get-tuple-element(r", k, "), index=0\n", "  bits", k, " = ", g.bits,
                    " get-tuple-element(r", k, "), index=1\n");
    absl::StrAppend(&root_shapes, k == 0 ? "" : ", ", state, ", ", g.bits);
    // (Not "s8": a name that spells a type does not parse.)
    absl::StrAppend(&root_operands, k == 0 ? "" : ", ", "state", k, ", bits", k);
  }
  const std::string text = absl::StrCat(
      "HloModule rngs\nENTRY main {\n  p0 = u64[2] parameter(0)\n", "  p1 = u64[3] parameter(1)\n",
      body, "  ROOT t = (", root_shapes, ") tuple(", root_operands, ")\n}\n");
  const std::vector<std::vector<uint64_t>> states = {
      {0x0123456789abcdefull, 42, 7},
      // Counters about to wrap: ThreeFry's 64 bits, Philox's 128.
      {0xfedcba9876543210ull, ~uint64_t{0} - 20, ~uint64_t{0}},
      {0, ~uint64_t{0} - 3, 5},
  };
  for (const std::vector<uint64_t>& state : states) {
    std::vector<Literal> arguments;
    arguments.push_back(Literal::CreateR1<uint64_t>({state[0], state[1]}));
    arguments.push_back(Literal::CreateR1<uint64_t>(state));
    Counts counts;
    CheckModule(text, std::move(arguments), &counts);
    EXPECT_EQ(counts.fallback, 0) << Fallbacks(text);
  }
}

// fft (fft_thunk.h: Eigen, or LaneFft): FFT, IFFT, RFFT and IRFFT over 1 to 3
// dimensions, powers of two and other lengths (7, 10, 12: Bluestein), C64
// and C128, batches split over threads; against the evaluator's DFT in
// double, to a relative tolerance (DotTolerance).
TEST(CpuOpsTest, FftRunsNatively) {
  const std::string text = R"(
HloModule ffts
ENTRY main {
  a = c64[3,16] parameter(0)
  b = c64[2,4,8] parameter(1)
  c = f32[5,12] parameter(2)
  d = c64[3,9] parameter(3)
  e = c64[2,6,5] parameter(4)
  f = c128[2,3,4,5] parameter(5)
  g = f64[4,10] parameter(6)
  h = c64[5000,7] parameter(7)
  fa = c64[3,16] fft(a), fft_type=FFT, fft_length={16}
  fb = c64[2,4,8] fft(b), fft_type=IFFT, fft_length={4,8}
  fc = c64[5,7] fft(c), fft_type=RFFT, fft_length={12}
  fd = f32[3,16] fft(d), fft_type=IRFFT, fft_length={16}
  fe = f32[2,6,8] fft(e), fft_type=IRFFT, fft_length={6,8}
  ff = c128[2,3,4,5] fft(f), fft_type=FFT, fft_length={3,4,5}
  fg = c128[4,6] fft(g), fft_type=RFFT, fft_length={10}
  fh = c64[5000,7] fft(h), fft_type=IFFT, fft_length={7}
  ROOT t = (c64[3,16], c64[2,4,8], c64[5,7], f32[3,16], f32[2,6,8], c128[2,3,4,5], c128[4,6], c64[5000,7]) tuple(fa, fb, fc, fd, fe, ff, fg, fh)
}
)";
  CheckNativeModule(text);
}

// fft through LaneFft (lane_fft.h), which runs where the lines fill the
// vector lanes and the lengths factor into primes up to 31: every type,
// radix 4, 2, 3, 5 and 7 mixed, 13 and 11 x 3 (direct DFT stages), even
// and odd IRFFT lengths, 2-D and 3-D
// transforms (axes other than the last: lines strided by the inner
// extent), and a partial last group of lines; lengths with a prime factor
// beyond 31 (Bluestein's transform: 37, 101, 74 = 2 x 37, 82 = 2 x 41, an
// inner axis of 37) in every direction and type; one line of 64 (on one
// lane).  Against the evaluator's DFT in double.
TEST(CpuOpsTest, FftOnManyLinesRunsLaneFft) {
  const std::string text = R"(
HloModule lane_ffts
ENTRY main {
  a = c64[40,16] parameter(0)
  b = c64[33,12] parameter(1)
  c = f32[21,30] parameter(2)
  d = c64[19,16] parameter(3)
  e = c64[19,8] parameter(4)
  f = c64[3,10,6] parameter(5)
  g = f32[4,6,20] parameter(6)
  h = c128[17,64] parameter(7)
  i = c128[9,5,7] parameter(8)
  j = c64[20,37] parameter(9)
  k = f64[11,49] parameter(10)
  l = c64[1,64] parameter(11)
  m = c64[40,13] parameter(12)
  n = c64[9,33] parameter(13)
  o = c128[10,101] parameter(14)
  p = f32[16,74] parameter(15)
  q = c64[8,42] parameter(16)
  r = c64[2,37,12] parameter(17)
  fa = c64[40,16] fft(a), fft_type=FFT, fft_length={16}
  fb = c64[33,12] fft(b), fft_type=IFFT, fft_length={12}
  fc = c64[21,16] fft(c), fft_type=RFFT, fft_length={30}
  fd = f32[19,30] fft(d), fft_type=IRFFT, fft_length={30}
  fe = f32[19,15] fft(e), fft_type=IRFFT, fft_length={15}
  ff = f32[3,10,10] fft(f), fft_type=IRFFT, fft_length={10,10}
  fg = c64[4,6,11] fft(g), fft_type=RFFT, fft_length={6,20}
  fh = c128[17,64] fft(h), fft_type=FFT, fft_length={64}
  fi = c128[9,5,7] fft(i), fft_type=IFFT, fft_length={5,7}
  fj = c64[20,37] fft(j), fft_type=FFT, fft_length={37}
  fk = c128[11,25] fft(k), fft_type=RFFT, fft_length={49}
  fl = c64[1,64] fft(l), fft_type=FFT, fft_length={64}
  fm = c64[40,13] fft(m), fft_type=FFT, fft_length={13}
  fn = c64[9,33] fft(n), fft_type=IFFT, fft_length={33}
  fo = c128[10,101] fft(o), fft_type=IFFT, fft_length={101}
  fp = c64[16,38] fft(p), fft_type=RFFT, fft_length={74}
  fq = f32[8,82] fft(q), fft_type=IRFFT, fft_length={82}
  fr = c64[2,37,12] fft(r), fft_type=FFT, fft_length={37,12}
  ROOT t = (c64[40,16], c64[33,12], c64[21,16], f32[19,30], f32[19,15], f32[3,10,10], c64[4,6,11], c128[17,64], c128[9,5,7], c64[20,37], c128[11,25], c64[1,64], c64[40,13], c64[9,33], c128[10,101], c64[16,38], f32[8,82], c64[2,37,12]) tuple(fa, fb, fc, fd, fe, ff, fg, fh, fi, fj, fk, fl, fm, fn, fo, fp, fq, fr)
}
)";
  CheckNativeModule(text);
}

// A long line whose length is not a power of two, too few lines to fill
// the vector lanes: LaneFft's (Bluestein's transform here: 16411 is prime)
// rather than Eigen's Bluestein transform, which was 12-20% off at 20000
// points.  Against the evaluator's DFT in double.
TEST(CpuOpsTest, LongFftsOfOddLengthsAreAccurate) {
  CheckModule(R"(
HloModule long_odd_fft
ENTRY main {
  x = c64[1,16411] parameter(0)
  ROOT f = c64[1,16411] fft(x), fft_type=FFT, fft_length={16411}
}
)");
}

// Beyond LaneFft's reach (2^18 points), a length that is not a power of two
// runs Bluestein's transform over four steps (bluestein_fft.h), where
// Eigen's was 160 off for outputs of about 220.  The evaluator's DFT of
// 300007 points would take too long: a tone e^(2 pi i f j / n) has the
// spectrum n at f and 0 elsewhere.
TEST(CpuOpsTest, FftsBeyondLaneFftAreAccurate) {
  constexpr int64_t n = 300007, f = 12345;
  auto module = ParseHloModule(absl::StrCat("HloModule long_fft\nENTRY main {\n  x = c64[1,", n,
                                            "] parameter(0)\n  ROOT f = c64[1,", n,
                                            "] fft(x), fft_type=FFT, fft_length={", n, "}\n}\n"));
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable = CompileForCpu(*std::move(module));
  ASSERT_TRUE(executable.ok()) << executable.status();
  Literal tone(Shape::MakeArray(C64, {1, n}));
  absl::Span<complex64> x = tone.data<complex64>();
  for (int64_t j = 0; j < n; ++j) {
    x[j] = std::polar(1.0, 2 * M_PI * static_cast<double>((j * f) % n) / n);
  }
  absl::StatusOr<Literal> spectrum = (*executable)->Run({tone});
  ASSERT_TRUE(spectrum.ok()) << spectrum.status();
  absl::Span<const complex64> y = spectrum->data<complex64>();
  double largest_error = 0;
  for (int64_t k = 0; k < n; ++k) {
    largest_error = std::max(largest_error, std::abs(std::complex<double>(y[k]) -
                                                     std::complex<double>(k == f ? n : 0, 0)));
  }
  EXPECT_LT(largest_error, 0.5);
}

// The result of `text`'s one-parameter module compiled for the CPU, run on
// `input`.
absl::StatusOr<Literal> RunOnCpu(const std::string& text, const Literal& input) {
  TS_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ParseHloModule(text));
  TS_ASSIGN_OR_RETURN(std::unique_ptr<CpuExecutable> executable, CompileForCpu(std::move(module)));
  return executable->Run({input});
}

// RFFTs and IRFFTs of many lines run two real lines to a lane (z = x + i y,
// lane_fft_axis.cc): whole groups of 32 f32 lines through tile transposes
// and a partial one, even and odd lengths, c128's groups of 16, and the
// last axis of a 2-D IRFFT.  Against the evaluator's DFT in double.
TEST(CpuOpsTest, RealFftsOfManyLinesPairTheirLines) {
  const std::string text = R"(
HloModule real_pairs
ENTRY main {
  a = f32[45,64] parameter(0)
  b = c64[70,33] parameter(1)
  c = f32[33,75] parameter(2)
  d = c128[17,16] parameter(3)
  e = c64[6,40,9] parameter(4)
  fa = c64[45,33] fft(a), fft_type=RFFT, fft_length={64}
  fb = f32[70,64] fft(b), fft_type=IRFFT, fft_length={64}
  fc = c64[33,38] fft(c), fft_type=RFFT, fft_length={75}
  fd = f64[17,30] fft(d), fft_type=IRFFT, fft_length={30}
  fe = f32[6,40,16] fft(e), fft_type=IRFFT, fft_length={40,16}
  ROOT t = (c64[45,33], f32[70,64], c64[33,38], f64[17,30], f32[6,40,16])
      tuple(fa, fb, fc, fd, fe)
}
)";
  CheckNativeModule(text);
}

// The columns of 2-D and 3-D transforms: a group of lanes of adjacent
// columns gathers each element's lanes in one run (lane_fft_axis.cc), a
// group that straddles two rows of columns (20 of them) element by element;
// c64 and c128, forward and inverse, and an IRFFT's other axes.
TEST(CpuOpsTest, FftColumnsGatherAdjacentLanesTogether) {
  const std::string text = R"(
HloModule columns
ENTRY main {
  a = c64[2,24,48] parameter(0)
  b = c64[3,10,20] parameter(1)
  c = c128[2,16,32] parameter(2)
  d = c64[5,17,32] parameter(3)
  e = c64[2,6,8,16] parameter(4)
  fa = c64[2,24,48] fft(a), fft_type=FFT, fft_length={24,48}
  fb = c64[3,10,20] fft(b), fft_type=IFFT, fft_length={10,20}
  fc = c128[2,16,32] fft(c), fft_type=IFFT, fft_length={16,32}
  fd = f32[5,17,62] fft(d), fft_type=IRFFT, fft_length={17,62}
  fe = c64[2,6,8,16] fft(e), fft_type=FFT, fft_length={6,8,16}
  ROOT t = (c64[2,24,48], c64[3,10,20], c128[2,16,32], f32[5,17,62], c64[2,6,8,16])
      tuple(fa, fb, fc, fd, fe)
}
)";
  CheckNativeModule(text);
}

// Real transforms and 2-D transforms with an axis beyond LaneFft's reach
// run it a line at a time (line_fft.h) where Eigen's transform was 1.4e-3
// of the largest magnitude off numpy's: an RFFT of an odd length, an IRFFT
// of an even one (real lines packed two points to one), and a 2-D FFT
// whose long axis is strided.  Tones again: cos(2 pi f j / n) has the half
// spectrum n/2 at f and 0 elsewhere.
TEST(CpuOpsTest, RealAnd2dFftsBeyondLaneFftAreAccurate) {
  constexpr int64_t f = 4321;
  auto tone = [](int64_t n, int64_t j) {
    return 2 * M_PI * static_cast<double>((j * f) % n) / static_cast<double>(n);
  };
  {
    constexpr int64_t n = 300007;
    Literal x(Shape::MakeArray(F32, {1, n}));
    for (int64_t j = 0; j < n; ++j) x.data<float>()[j] = std::cos(tone(n, j));
    absl::StatusOr<Literal> y =
        RunOnCpu(absl::StrCat("HloModule rfft\nENTRY main {\n  x = f32[1,", n,
                              "] parameter(0)\n  ROOT f = c64[1,", n / 2 + 1,
                              "] fft(x), fft_type=RFFT, fft_length={", n, "}\n}\n"),
                 x);
    ASSERT_TRUE(y.ok()) << y.status();
    double largest_error = 0;
    for (int64_t k = 0; k <= n / 2; ++k) {
      const std::complex<double> want(k == f ? n / 2.0 : 0, 0);
      largest_error =
          std::max(largest_error, std::abs(std::complex<double>(y->data<complex64>()[k]) - want));
    }
    EXPECT_LT(largest_error, 0.5) << "RFFT";
  }
  {
    constexpr int64_t n = 300006;
    Literal x(Shape::MakeArray(C64, {1, n / 2 + 1}));
    x.data<complex64>()[f] = complex64(n / 2.0, 0);
    absl::StatusOr<Literal> y =
        RunOnCpu(absl::StrCat("HloModule irfft\nENTRY main {\n  x = c64[1,", n / 2 + 1,
                              "] parameter(0)\n  ROOT f = f32[1,", n,
                              "] fft(x), fft_type=IRFFT, fft_length={", n, "}\n}\n"),
                 x);
    ASSERT_TRUE(y.ok()) << y.status();
    double largest_error = 0;
    for (int64_t j = 0; j < n; ++j) {
      largest_error = std::max(
          largest_error, std::abs(static_cast<double>(y->data<float>()[j]) - std::cos(tone(n, j))));
    }
    EXPECT_LT(largest_error, 1e-5) << "IRFFT";
  }
  {
    constexpr int64_t n = 300007;
    Literal x(Shape::MakeArray(C64, {n, 2}));
    for (int64_t j = 0; j < n; ++j) {
      x.data<complex64>()[2 * j] = x.data<complex64>()[2 * j + 1] =
          complex64(std::polar(1.0, tone(n, j)));
    }
    absl::StatusOr<Literal> y =
        RunOnCpu(absl::StrCat("HloModule fft2\nENTRY main {\n  x = c64[", n,
                              ",2] parameter(0)\n  ROOT f = c64[", n,
                              ",2] fft(x), fft_type=FFT, fft_length={", n, ",2}\n}\n"),
                 x);
    ASSERT_TRUE(y.ok()) << y.status();
    double largest_error = 0;
    for (int64_t k = 0; k < 2 * n; ++k) {
      const std::complex<double> want(k == 2 * f ? 2.0 * n : 0, 0);
      largest_error =
          std::max(largest_error, std::abs(std::complex<double>(y->data<complex64>()[k]) - want));
    }
    EXPECT_LT(largest_error, 1.0) << "2-D FFT";
  }
}

// RFFTs and IRFFTs of few lines, and a 2-D FFT whose first axis has too few
// lines for LaneFft, run a line at a time (line_fft.h), against the
// evaluator's DFT in double: even lengths packed (4096, 1000), odd ones
// not (1001), c128, and lines 2 apart.
TEST(CpuOpsTest, FftsOfFewLinesRunALineAtATime) {
  const std::string text = R"(
HloModule line_ffts
ENTRY main {
  a = f32[1,4096] parameter(0)
  b = c64[2,501] parameter(1)
  c = f64[3,1001] parameter(2)
  d = c64[512,2] parameter(3)
  e = c128[1,3,1024] parameter(4)
  fa = c64[1,2049] fft(a), fft_type=RFFT, fft_length={4096}
  fb = f32[2,1000] fft(b), fft_type=IRFFT, fft_length={1000}
  fc = c128[3,501] fft(c), fft_type=RFFT, fft_length={1001}
  fd = c64[512,2] fft(d), fft_type=IFFT, fft_length={512,2}
  fe = c128[1,3,1024] fft(e), fft_type=FFT, fft_length={3,1024}
  ROOT t = (c64[1,2049], f32[2,1000], c128[3,501], c64[512,2], c128[1,3,1024])
      tuple(fa, fb, fc, fd, fe)
}
)";
  CheckNativeModule(text);
}

// Long 1-D FFTs and IFFTs of few lines run in four steps (four_step_fft.h):
// square and oblong splits (4096 = 64 x 64, 3840 = 48 x 80), c128 with
// its 8 lanes, against the evaluator's DFT in double.
TEST(CpuOpsTest, LongFftsOfFewLinesRunInFourSteps) {
  const std::string text = R"(
HloModule four_step_ffts
ENTRY main {
  a = c64[2,4096] parameter(0)
  b = c64[1,1024] parameter(1)
  c = c64[3,3840] parameter(2)
  d = c128[3,256] parameter(3)
  fa = c64[2,4096] fft(a), fft_type=FFT, fft_length={4096}
  fb = c64[1,1024] fft(b), fft_type=IFFT, fft_length={1024}
  fc = c64[3,3840] fft(c), fft_type=FFT, fft_length={3840}
  fd = c128[3,256] fft(d), fft_type=IFFT, fft_length={256}
  ROOT t = (c64[2,4096], c64[1,1024], c64[3,3840], c128[3,256]) tuple(fa, fb, fc, fd)
}
)";
  CheckNativeModule(text);
}

// A cumulative sum (a reduce-window) whose result, through elementwise
// ops, indexes a gather of one-element slices, fused into one loop kernel
// (jnp.unique with a size: positions from a cumsum, then a gather).
TEST(CpuOpsTest, ReduceWindowIndexesAGather) {
  const std::string text = R"(
HloModule cumsum_gather
add {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT s = s32[] add(x, y)
}
ENTRY main {
  flags = s32[40] parameter(0)
  table = f32[50,1] parameter(1)
  zero = s32[] constant(0)
  cumsum = s32[40] reduce-window(flags, zero), window={size=40 pad=39_0}, to_apply=add
  one = s32[40] broadcast(s32[] constant(1)), dimensions={}
  positions = s32[40] subtract(cumsum, one)
  zeros = s32[40] broadcast(zero), dimensions={}
  clamped = s32[40] maximum(positions, zeros)
  indices = s32[40,1] reshape(clamped)
  column = f32[50] reshape(table)
  ROOT rows = f32[40] gather(column, indices), offset_dims={}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1}
}
)";
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> arguments = RandomArguments(**module, 3);
  // 0/1 flags, so that the positions stay inside the table.
  for (int32_t& flag : arguments[0].data<int32_t>()) flag = flag & 1;
  Counts counts;
  CheckModule(text, std::move(arguments), &counts, CpuCompileOptions());
  EXPECT_EQ(counts.fallback, 0) << Fallbacks(text, CpuCompileOptions());
}

// Complex dots (eigen_dot.h: four real GEMMs over the split parts): c64
// and c128, a batch, a transposed operand and a column-major result.
TEST(CpuOpsTest, ComplexDotsRunNatively) {
  const std::string text = R"(
HloModule complex_dots
ENTRY main {
  a = c64[33,70] parameter(0)
  b = c64[70,21] parameter(1)
  c = c128[3,40,17]{1,2,0} parameter(2)
  d = c128[3,40,9] parameter(3)
  ab = c64[33,21] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  cd = c128[3,17,9]{1,2,0} dot(c, d), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_contracting_dims={1}
  ROOT t = (c64[33,21], c128[3,17,9]{1,2,0}) tuple(ab, cd)
}
)";
  CheckNativeModule(text);
}

// A loop whose condition ANDs a pred element of the state (jax's
// while_loop over (x, i, flag)): the predicate must not be written over
// that element, which is the loop's result once the condition is false.
TEST(CpuOpsTest, LoopConditionKeepsTheStateItReads) {
  const std::string text = R"(
HloModule loop_flag
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
body {
  s = (f32[4], s64[], pred[]) parameter(0)
  x = f32[4] get-tuple-element(s), index=0
  i = s64[] get-tuple-element(s), index=1
  c = f32[] constant(1.5)
  cb = f32[4] broadcast(c), dimensions={}
  x2 = f32[4] multiply(x, cb)
  seven = s64[] constant(7)
  i2 = s64[] add(i, seven)
  z = f32[] constant(0)
  sum = f32[] reduce(x, z), dimensions={0}, to_apply=add
  big = f32[] constant(1000)
  flag = pred[] compare(sum, big), direction=LT
  ROOT t = (f32[4], s64[], pred[]) tuple(x2, i2, flag)
}
cond {
  s = (f32[4], s64[], pred[]) parameter(0)
  flag = pred[] get-tuple-element(s), index=2
  i = s64[] get-tuple-element(s), index=1
  fifty = s64[] constant(50)
  lt = pred[] compare(i, fifty), direction=LT
  ROOT go = pred[] and(flag, lt)
}
ENTRY main {
  x = f32[4] parameter(0)
  zero = s64[] constant(0)
  yes = pred[] constant(true)
  init = (f32[4], s64[], pred[]) tuple(x, zero, yes)
  ROOT w = (f32[4], s64[], pred[]) while(init), condition=cond, body=body
}
)";
  CheckNativeModule(text);
}

// Dots whose operands or result do not collapse to one GEMM stride per
// role (contracting dimensions ahead of batch ones, a free dimension
// between contracting ones, a result laid out with a batch dimension
// minor-most, a split rhs free group) run as GEMMs on transposed
// operands (DotCanonicalization) instead of falling back; the bf16 one
// keeps its type.
TEST(CpuOpsTest, DotsTheGemmCannotReadAreTransposed) {
  const std::string text = R"(
HloModule odd_dots
ENTRY main {
  a = f32[5,4,3] parameter(0)
  b = f32[3,6,5] parameter(1)
  c = f32[2,7,3,5] parameter(2)
  d = f32[7,5,9] parameter(3)
  e = bf16[6,2,4,3] parameter(4)
  f = bf16[2,3,4,5] parameter(5)
  ab = f32[3,4,6] dot(a, b), lhs_batch_dims={2}, rhs_batch_dims={0}, lhs_contracting_dims={0}, rhs_contracting_dims={2}
  cd = f32[2,3,9]{0,2,1} dot(c, d), lhs_contracting_dims={1,3}, rhs_contracting_dims={0,1}
  ef = bf16[2,6,3,3,5] dot(e, f), lhs_batch_dims={1}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={2}
  ROOT t = (f32[3,4,6], f32[2,3,9]{0,2,1}, bf16[2,6,3,3,5]) tuple(ab, cd, ef)
}
)";
  CheckNativeModule(text);
}

// Counted loops run their trip count without the condition (up by 1 from
// below, down by 3 with >=, one that never runs, and one whose bound is a
// parameter and keeps its condition); against the evaluator, and the
// counts in the runtime plan.
TEST(CpuOpsTest, CountedLoopsRunTheirTripCount) {
  const std::string text = R"(
HloModule loops
up_body {
  s = (s32[], f32[5]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[5] get-tuple-element(s), index=1
  fi = f32[] convert(i)
  b = f32[5] broadcast(fi), dimensions={}
  w = f32[5] add(v, b)
  one = s32[] constant(1)
  n = s32[] add(i, one)
  ROOT t = (s32[], f32[5]) tuple(n, w)
}
up_cond {
  s = (s32[], f32[5]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  k = s32[] constant(7)
  ROOT c = pred[] compare(i, k), direction=LT
}
down_body {
  s = (s32[], f32[5]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[5] get-tuple-element(s), index=1
  half = f32[5] constant({0.5, 0.5, 0.5, 0.5, 0.5})
  w = f32[5] multiply(v, half)
  three = s32[] constant(3)
  n = s32[] subtract(i, three)
  ROOT t = (s32[], f32[5]) tuple(n, w)
}
down_cond {
  s = (s32[], f32[5]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  z = s32[] constant(0)
  ROOT c = pred[] compare(z, i), direction=LE
}
bound_cond {
  s = (s32[], f32[5], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  k = s32[] get-tuple-element(s), index=2
  ROOT c = pred[] compare(i, k), direction=LT
}
bound_body {
  s = (s32[], f32[5], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[5] get-tuple-element(s), index=1
  k = s32[] get-tuple-element(s), index=2
  w = f32[5] add(v, v)
  one = s32[] constant(1)
  n = s32[] add(i, one)
  ROOT t = (s32[], f32[5], s32[]) tuple(n, w, k)
}
ENTRY main {
  x = f32[5] parameter(0)
  zero = s32[] constant(0)
  up = (s32[], f32[5]) while((s32[], f32[5]) tuple(zero, x)), condition=up_cond, body=up_body
  ten = s32[] constant(10)
  down = (s32[], f32[5]) while((s32[], f32[5]) tuple(ten, x)), condition=down_cond, body=down_body
  nine = s32[] constant(9)
  never = (s32[], f32[5]) while((s32[], f32[5]) tuple(nine, x)), condition=up_cond, body=up_body
  bound = s32[] parameter(1)
  two = s32[] constant(2)
  clamped = s32[] clamp(zero, bound, two)
  some = (s32[], f32[5], s32[]) while((s32[], f32[5], s32[]) tuple(zero, x, clamped)), condition=bound_cond, body=bound_body
  u = f32[5] get-tuple-element(up), index=1
  ui = s32[] get-tuple-element(up), index=0
  d = f32[5] get-tuple-element(down), index=1
  di = s32[] get-tuple-element(down), index=0
  nv = f32[5] get-tuple-element(never), index=1
  ni = s32[] get-tuple-element(never), index=0
  sv = f32[5] get-tuple-element(some), index=1
  ROOT t = (f32[5], s32[], f32[5], s32[], f32[5], s32[], f32[5]) tuple(u, ui, d, di, nv, ni, sv)
}
)";
  Counts counts;
  CheckModule(text, {}, &counts, LibmMath());
  EXPECT_EQ(counts.fallback, 0) << Fallbacks(text, LibmMath());
  auto module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
      CompileForCpu(*std::move(module), LibmMath());
  ASSERT_TRUE(executable.ok()) << executable.status();
  const std::string plan = (*executable)->ToString();
  EXPECT_NE(plan.find("(trip count 7)"), std::string::npos) << plan;
  EXPECT_NE(plan.find("(trip count 4)"), std::string::npos) << plan;
  EXPECT_NE(plan.find("(trip count 0)"), std::string::npos) << plan;
  EXPECT_NE(plan.find("(predicate"), std::string::npos) << plan;
}

// A scan and its backward scan (as JAX's grad of lax.scan): the backward
// loop sums a product per step into an accumulator, acc + a x b, which the
// GEMM's epilogue updates in place with the product staged in scratch
// (no copy of the accumulator per step).  Outside loops the same: an
// addend that dies at the sum gives the sum its storage.
TEST(CpuOpsTest, DotAccumulatorsAreUpdatedInPlace) {
  const std::string text = R"(
HloModule accumulate
fcond {
  s = (s32[], f32[2,8], f32[4,2,8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}
fbody {
  s = (s32[], f32[2,8], f32[4,2,8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  h = f32[2,8] get-tuple-element(s), index=1
  hs = f32[4,2,8] get-tuple-element(s), index=2
  t = f32[2,8] tanh(h)
  z = s32[] constant(0)
  row = f32[1,2,8] reshape(h)
  hs2 = f32[4,2,8] dynamic-update-slice(hs, row, i, z, z)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT next = (s32[], f32[2,8], f32[4,2,8]) tuple(i2, t, hs2)
}
bcond {
  s = (s32[], f32[8,8], f32[4,2,8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}
bbody {
  s = (s32[], f32[8,8], f32[4,2,8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = f32[8,8] get-tuple-element(s), index=1
  hs = f32[4,2,8] get-tuple-element(s), index=2
  z = s32[] constant(0)
  slice = f32[1,2,8] dynamic-slice(hs, i, z, z), dynamic_slice_sizes={1,2,8}
  r = f32[2,8] reshape(slice)
  d = f32[8,8] dot(r, r), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  acc2 = f32[8,8] add(acc, d)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT next = (s32[], f32[8,8], f32[4,2,8]) tuple(i2, acc2, hs)
}
ENTRY main {
  x = f32[2,8] parameter(0)
  c0 = f32[] constant(0)
  zeros = f32[4,2,8] broadcast(c0), dimensions={}
  z0 = s32[] constant(0)
  init = (s32[], f32[2,8], f32[4,2,8]) tuple(z0, x, zeros)
  fw = (s32[], f32[2,8], f32[4,2,8]) while(init), condition=fcond, body=fbody
  hs = f32[4,2,8] get-tuple-element(fw), index=2
  a = f32[8,8] parameter(1)
  acc0 = f32[8,8] negate(a)
  z1 = s32[] constant(0)
  binit = (s32[], f32[8,8], f32[4,2,8]) tuple(z1, acc0, hs)
  bw = (s32[], f32[8,8], f32[4,2,8]) while(binit), condition=bcond, body=bbody
  sum = f32[8,8] get-tuple-element(bw), index=1
  p = f32[8,16] parameter(2)
  q = f32[16,8] parameter(3)
  e = f32[8,8] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  pq = f32[8,8] dot(p, q), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  outside = f32[8,8] add(e, pq)
  ROOT out = (f32[8,8], f32[8,8]) tuple(sum, outside)
}
)";
  Counts counts;
  CheckModule(text, {}, &counts, LibmMath());
  EXPECT_EQ(counts.fallback, 0) << Fallbacks(text, LibmMath());
  auto module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
      CompileForCpu(*std::move(module), LibmMath());
  ASSERT_TRUE(executable.ok()) << executable.status();
  const std::string plan = (*executable)->ToString();
  const std::string staged = "(product staged: the result is an operand)";
  const size_t first = plan.find(staged);
  ASSERT_NE(first, std::string::npos) << plan;
  EXPECT_NE(plan.find(staged, first + 1), std::string::npos) << plan;
}

// A causal softmax (attention's: the mask an iota compare) is one row
// kernel: the iotas fuse into the row reductions as broadcasts do, and
// exp of the mask's -inf is 0 (without denormal arithmetic).
TEST(CpuOpsTest, CausalSoftmaxIsOneRowKernel) {
  const std::string text = R"(
HloModule causal
max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  s = f32[1,4,33,33] parameter(0)
  row = s32[33,33] iota(), iota_dimension=0
  column = s32[33,33] iota(), iota_dimension=1
  keep = pred[33,33] compare(row, column), direction=GE
  keep4 = pred[1,4,33,33] broadcast(keep), dimensions={2,3}
  ninf = f32[] constant(-inf)
  ninf4 = f32[1,4,33,33] broadcast(ninf), dimensions={}
  masked = f32[1,4,33,33] select(keep4, s, ninf4)
  max = f32[1,4,33] reduce(masked, ninf), dimensions={3}, to_apply=max_f32
  maxb = f32[1,4,33,33] broadcast(max), dimensions={0,1,2}
  shifted = f32[1,4,33,33] subtract(masked, maxb)
  e = f32[1,4,33,33] exponential(shifted)
  zero = f32[] constant(0)
  sum = f32[1,4,33] reduce(e, zero), dimensions={3}, to_apply=add_f32
  sumb = f32[1,4,33,33] broadcast(sum), dimensions={0,1,2}
  ROOT p = f32[1,4,33,33] divide(e, sumb)
}
)";
  Counts counts;
  CheckModule(text, {}, &counts);
  EXPECT_EQ(counts.fallback, 0) << Fallbacks(text);
  auto module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable = CompileForCpu(*std::move(module));
  ASSERT_TRUE(executable.ok()) << executable.status();
  const std::string plan = (*executable)->ToString();
  int kernels = 0;
  for (size_t at = plan.find("kernel "); at != std::string::npos;
       at = plan.find("kernel ", at + 1)) {
    ++kernels;
  }
  EXPECT_EQ(kernels, 1) << plan;
}

// A scan: a while loop writing one row per step into a loop-carried
// buffer with dynamic-update-slice (in place over the buffer, so a step
// writes only its row), including starts past the end (clamped), f32 and
// s32 buffers.
TEST(CpuOpsTest, ScanWritesRowsInPlace) {
  const std::string text = R"(
HloModule scan
cond {
  s = (s32[], f32[37,50], s32[9,3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(40)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[37,50], s32[9,3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  buf = f32[37,50] get-tuple-element(s), index=1
  ibuf = s32[9,3] get-tuple-element(s), index=2
  fi = f32[] convert(i)
  row = f32[1,50] broadcast(fi), dimensions={}
  iota = f32[1,50] iota(), iota_dimension=1
  value = f32[1,50] add(row, iota)
  zero = s32[] constant(0)
  nbuf = f32[37,50] dynamic-update-slice(buf, value, i, zero)
  irow = s32[1,3] broadcast(i), dimensions={}
  three = s32[] constant(3)
  j = s32[] remainder(i, three)
  nibuf = s32[9,3] dynamic-update-slice(ibuf, irow, i, j)
  one = s32[] constant(1)
  next = s32[] add(i, one)
  ROOT t = (s32[], f32[37,50], s32[9,3]) tuple(next, nbuf, nibuf)
}
ENTRY main {
  start = s32[] constant(0)
  b = f32[37,50] parameter(0)
  ib = s32[9,3] parameter(1)
  init = (s32[], f32[37,50], s32[9,3]) tuple(start, b, ib)
  w = (s32[], f32[37,50], s32[9,3]) while(init), condition=cond, body=body
  r = f32[37,50] get-tuple-element(w), index=1
  ri = s32[9,3] get-tuple-element(w), index=2
  ROOT out = (f32[37,50], s32[9,3]) tuple(r, ri)
}
)";
  Counts counts;
  CheckModule(text, {}, &counts, LibmMath());
  EXPECT_EQ(counts.fallback, 0) << Fallbacks(text, LibmMath());
}

// JAX's embedding lookup scanned over time: the loop state carries the
// gathered rows as a transposed view ({2,0,1}) while the body declares them
// row-major.  The loop may not read the view's bytes as the body's layout
// (this once gave wrong rows from the second batch row on).
TEST(CpuOpsTest, LoopStateWithAnotherLayoutThanItsInit) {
  const std::string text = R"(
HloModule scan_embeddings
cond {
  s = (s32[], f32[32,16,64]{2,1,0}, f32[32,16,64]{2,1,0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(32)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[32,16,64]{2,1,0}, f32[32,16,64]{2,1,0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  xs = f32[32,16,64]{2,1,0} get-tuple-element(s), index=1
  zero = s32[] constant(0)
  step = f32[1,16,64]{2,1,0} dynamic-slice(xs, i, zero, zero), dynamic_slice_sizes={1,16,64}
  th = f32[1,16,64]{2,1,0} tanh(step)
  out = f32[32,16,64]{2,1,0} get-tuple-element(s), index=2
  next_out = f32[32,16,64]{2,1,0} dynamic-update-slice(out, th, i, zero, zero)
  one = s32[] constant(1)
  next = s32[] add(i, one)
  ROOT r = (s32[], f32[32,16,64]{2,1,0}, f32[32,16,64]{2,1,0}) tuple(next, xs, next_out)
}
ENTRY main {
  table = f32[1000,64]{1,0} parameter(0)
  tokens = s32[16,32]{1,0} parameter(1)
  ids = s32[16,32,1]{2,1,0} reshape(tokens)
  rows = f32[16,32,64]{2,1,0} gather(table, ids), offset_dims={2}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=2, slice_sizes={1,64}
  view = f32[32,16,64]{2,0,1} transpose(rows), dimensions={1,0,2}
  zero = s32[] constant(0)
  z = f32[] constant(0)
  out = f32[32,16,64]{2,1,0} broadcast(z), dimensions={}
  init = (s32[], f32[32,16,64]{2,0,1}, f32[32,16,64]{2,1,0}) tuple(zero, view, out)
  w = (s32[], f32[32,16,64]{2,0,1}, f32[32,16,64]{2,1,0}) while(init), condition=cond, body=body
  ROOT result = f32[32,16,64]{2,1,0} get-tuple-element(w), index=2
}
)";
  Counts counts;
  CheckModule(text, {}, &counts, LibmMath());
  EXPECT_EQ(counts.fallback, 0) << Fallbacks(text, LibmMath());
}

// A reverse scan's counters: the next counter (updating the loop state in
// place) and the reversed index both come out of one multi-output kernel
// reading the counter; the outputs that read it run before the one that
// overwrites it, natively.
TEST(CpuOpsTest, LoopCountersComputedTogetherInPlace) {
  const std::string text = R"(
HloModule reverse_scan
cond {
  s = (s32[], f32[8,16]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(8)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[8,16]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  buf = f32[8,16] get-tuple-element(s), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  seven = s32[] constant(8)
  rev0 = s32[] subtract(seven, i)
  rev = s32[] subtract(rev0, one)
  fi = f32[] constant(2)
  row = f32[1,16] broadcast(fi), dimensions={}
  zero = s32[] constant(0)
  nbuf = f32[8,16] dynamic-update-slice(buf, row, rev, zero)
  ROOT t = (s32[], f32[8,16]) tuple(next, nbuf)
}
ENTRY main {
  start = s32[] constant(0)
  b = f32[8,16] parameter(0)
  init = (s32[], f32[8,16]) tuple(start, b)
  w = (s32[], f32[8,16]) while(init), condition=cond, body=body
  ROOT r = f32[8,16] get-tuple-element(w), index=1
}
)";
  Counts counts;
  CheckModule(text, {}, &counts, LibmMath());
  EXPECT_EQ(counts.fallback, 0) << Fallbacks(text, LibmMath());
}

// A recurrent cell's fused dot: the activation, a reshaped function of it
// (not read where it is written: it runs before the activation's kernel
// updates the dot in place), and a dot whose only output is a reshape of
// it (the GEMM writes those bytes directly), all natively.
TEST(CpuOpsTest, DotFusionsWithReshapedOutputs) {
  const std::string text = R"(
HloModule dot_reshapes
ENTRY main {
  x = f32[16,64] parameter(0)
  w = f32[64,128] parameter(1)
  h = f32[16,128] parameter(2)
  b = f32[128] parameter(3)
  v = f32[32,64] parameter(4)
  d = f32[16,128] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  a = f32[16,128] add(d, h)
  bb = f32[16,128] broadcast(b), dimensions={1}
  a2 = f32[16,128] add(a, bb)
  t = f32[16,128] tanh(a2)
  one = f32[] constant(1)
  ones = f32[16,128] broadcast(one), dimensions={}
  g = f32[16,128] subtract(ones, t)
  r = f32[1,16,128] reshape(g)
  d2 = f32[16,32] dot(x, v), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  r2 = f32[1,16,32] reshape(d2)
  ROOT out = (f32[16,128], f32[1,16,128], f32[1,16,32]) tuple(t, r, r2)
}
)";
  CheckNativeModule(text);
}

// Select-and-scatter: JAX's max-pool gradient (ge select, add scatter)
// with strides and SAME padding and overlapping windows, and a min select
// with a non-commutative scatter; element for element with the evaluator.
TEST(CpuOpsTest, SelectAndScatterRunsNatively) {
  const std::string text = R"(
HloModule pool_grad
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
le {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LE
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
sub {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] subtract(a, b)
}
ENTRY main {
  x = f32[2,11,13,3] parameter(0)
  g = f32[2,6,7,3] parameter(1)
  zero = f32[] constant(0)
  pooled = f32[2,11,13,3] select-and-scatter(x, g, zero), window={size=1x2x2x1 stride=1x2x2x1 pad=0_0x0_1x0_1x0_0}, select=ge, scatter=add
  g2 = f32[2,5,6,3] parameter(2)
  one = f32[] constant(1)
  overlapping = f32[2,11,13,3] select-and-scatter(x, g2, one), window={size=1x3x3x1 stride=1x2x2x1}, select=le, scatter=sub
  ROOT t = (f32[2,11,13,3], f32[2,11,13,3]) tuple(pooled, overlapping)
}
)";
  Counts counts;
  CheckModule(text, {}, &counts, LibmMath());
  EXPECT_EQ(counts.fallback, 0) << Fallbacks(text, LibmMath());
  // Split over threads (the pooling one partitions its batch dimension).
  CpuCompileOptions split = LibmMath();
  split.parallel_min_elements = 0;
  CheckModule(text, {}, &counts, split);
}

// Kernels the runtime calls once over their whole range are compiled with
// constant loop bounds, and column tiles fold their tails under a mask:
// elementwise, row (softmax) and column (sum over rows) kernels and a
// multi-output fusion, at sizes around the vector width and the 64-wide
// column tile, whole and split over threads, bit for bit (LibmMath).
TEST(CpuOpsTest, WholeRangeAndMaskedTailKernelsMatchTheEvaluator) {
  CpuCompileOptions whole = LibmMath();
  whole.parallel_min_elements = int64_t{1} << 40;
  CpuCompileOptions split = LibmMath();
  split.parallel_min_elements = 0;
  const std::string reducers = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
)";
  // Row max, exp, row sum: a softmax up to its division.
  const std::string softmax_rows = R"(
  zero = f32[] constant(0)
  low = f32[] constant(-inf)
  row_max = f32[ROWS] reduce(x, low), dimensions={1}, to_apply=max
  max_b = f32[ROWS,COLS] broadcast(row_max), dimensions={0}
  shifted = f32[ROWS,COLS] subtract(x, max_b)
  e = f32[ROWS,COLS] exponential(shifted)
  row_sum = f32[ROWS] reduce(e, zero), dimensions={1}, to_apply=add
  sum_b = f32[ROWS,COLS] broadcast(row_sum), dimensions={0}
)";
  const std::string softmax =
      absl::StrCat("ENTRY e {\n  x = f32[ROWS,COLS] parameter(0)", softmax_rows,
                   "  ROOT softmax = f32[ROWS,COLS] divide(e, sum_b)\n}\n");
  const std::string column_sums = R"(
ENTRY e {
  y = f32[ROWS,COLS] parameter(0)
  zero = f32[] constant(0)
  column_sum = f32[COLS] reduce(y, zero), dimensions={0}, to_apply=add
  scaled = f32[COLS] multiply(column_sum, column_sum)
  ROOT t = (f32[COLS], f32[COLS]) tuple(scaled, column_sum)
}
)";
  const std::string product = R"(
ENTRY e {
  x = f32[ROWS,COLS] parameter(0)
  y = f32[ROWS,COLS] parameter(1)
  ROOT product = f32[ROWS,COLS] multiply(x, y)
}
)";
  // All three in one module: the multi-output fusion of the softmax with
  // the product (siblings reading x) computes each output on its own, the
  // softmax's with the fusion's unused parameters.
  const std::string together = absl::StrCat(
      "ENTRY e {\n  x = f32[ROWS,COLS] parameter(0)\n  y = f32[ROWS,COLS] parameter(1)",
      softmax_rows, R"(  softmax = f32[ROWS,COLS] divide(e, sum_b)
  column_sum = f32[COLS] reduce(y, zero), dimensions={0}, to_apply=add
  scaled = f32[COLS] multiply(column_sum, column_sum)
  product = f32[ROWS,COLS] multiply(x, y)
  ROOT t = (f32[ROWS,COLS], f32[COLS], f32[ROWS,COLS], f32[COLS]) tuple(softmax, scaled, product, column_sum)
}
)");
  for (const std::string& rows : {"3", "17"}) {
    for (const std::string& columns : {"1", "7", "63", "65", "1025"}) {
      for (const std::string* entry : {&softmax, &column_sums, &product, &together}) {
        const std::string text =
            absl::StrReplaceAll(absl::StrCat("HloModule whole_range\n", reducers, *entry),
                                {{"ROWS", rows}, {"COLS", columns}});
        SCOPED_TRACE(text);
        Counts counts;
        CheckModule(text, {}, &counts, whole);
        EXPECT_EQ(counts.fallback, 0) << Fallbacks(text, whole);
        CheckModule(text, {}, &counts, split);
      }
    }
  }
}

// Bitcasts between layouts (the same bytes as another shape) inside fused
// kernels: the element at the same physical position, against the
// evaluator's byte-level bitcast.
TEST(CpuOpsTest, LayoutChangingBitcastsInKernels) {
  Counts counts;
  CheckModule(R"(
HloModule bitcasts
ENTRY e {
  x = f32[3,4,5]{2,0,1} parameter(0)
  b = f32[4,3,5]{2,1,0} bitcast(x)
  y = f32[4,3,5] parameter(1)
  s = f32[4,3,5] add(b, y)
  c = f32[20,3]{0,1} bitcast(s)
  ROOT m = f32[20,3] multiply(c, c)
}
)",
              {}, &counts, LibmMath());
  EXPECT_EQ(counts.fallback, 0);
  EXPECT_GT(counts.native, 0);
  // A bitcast that cycles three dimensions (the same array in memory): read
  // through a permuted index.
  CheckModule(R"(
HloModule cycle
ENTRY e {
  x = f32[2,3,4]{2,1,0} parameter(0)
  b = f32[4,2,3]{0,2,1} bitcast(x)
  y = f32[4,2,3] parameter(1)
  ROOT s = f32[4,2,3] add(b, y)
}
)",
              {}, &counts, LibmMath());
  EXPECT_EQ(counts.fallback, 0);
}

// Checks a module of each entry body (after `computations`) against the
// evaluator, run whole and split across threads, with `base`'s options
// (by default bit for bit): every instruction native.
void CheckEachEntry(absl::string_view computations, const std::vector<std::string>& bodies,
                    const CpuCompileOptions& base = LibmMath()) {
  for (const int64_t parallel_min_elements : {int64_t{0}, int64_t{1} << 30}) {
    CpuCompileOptions options = base;
    options.parallel_min_elements = parallel_min_elements;
    for (const std::string& body : bodies) {
      SCOPED_TRACE(absl::StrCat(body, " parallel_min_elements=", parallel_min_elements));
      Counts counts;
      CheckModule(absl::StrCat("HloModule m\n", computations, "ENTRY e {\n ", body, "\n}\n"), {},
                  &counts, options);
      EXPECT_EQ(counts.fallback, 0);
    }
  }
}

// Concatenating kernels split their innermost loop at the operands'
// boundaries (along the result's minor dimension, read at the root's
// index): two, three and eight operands, an empty one, sizes off the vector
// width, rank 1 split across threads, elementwise ops around it, element
// widths from 1 to 16 bytes, another layout; and concatenates that are not
// split (another dimension, read elsewhere, too many operands).
TEST(CpuOpsTest, ConcatenatingKernelsMatchTheEvaluator) {
  std::string eight_parts, eight_names;
  for (int i = 0; i < 8; ++i) {
    absl::StrAppend(&eight_parts, "p", i, " = f32[5,", 3 + i, "] parameter(", i, ")\n ");
    absl::StrAppend(&eight_names, i > 0 ? ", " : "", "p", i);
  }
  std::string nine = eight_parts + "p8 = f32[5,11] parameter(8)\n ";
  const std::vector<std::string> modules = {
      "x = f32[30,100] parameter(0)\n y = f32[30,37] parameter(1)\n"
      " ROOT c = f32[30,137] concatenate(x, y), dimensions={1}",
      "x = f32[7,1] parameter(0)\n y = f32[7,0] parameter(1)\n z = f32[7,65] parameter(2)\n"
      " ROOT c = f32[7,66] concatenate(x, y, z), dimensions={1}",
      "x = f32[1000] parameter(0)\n y = f32[1025] parameter(1)\n"
      " ROOT c = f32[2025] concatenate(x, y), dimensions={0}",
      "x = f32[9,40] parameter(0)\n y = f32[9,24] parameter(1)\n w = f32[9,64] parameter(2)\n"
      " c = f32[9,64] concatenate(x, y), dimensions={1}\n e = f32[9,64] exponential(c)\n"
      " ROOT s = f32[9,64] add(e, w)",
      eight_parts + "ROOT c = f32[5,52] concatenate(" + eight_names + "), dimensions={1}",
      "x = s8[3,33] parameter(0)\n y = s8[3,31] parameter(1)\n"
      " ROOT c = s8[3,64] concatenate(x, y), dimensions={1}",
      "x = f64[4,17] parameter(0)\n y = f64[4,3] parameter(1)\n"
      " ROOT c = f64[4,20] concatenate(x, y), dimensions={1}",
      "x = c64[4,5] parameter(0)\n y = c64[4,6] parameter(1)\n"
      " ROOT c = c64[4,11] concatenate(x, y), dimensions={1}",
      "x = pred[6,9] parameter(0)\n y = pred[6,40] parameter(1)\n"
      " ROOT c = pred[6,49] concatenate(x, y), dimensions={1}",
      // Under a root reshape.
      "x = f32[6,100] parameter(0)\n y = f32[6,60] parameter(1)\n"
      " c = f32[6,160] concatenate(x, y), dimensions={1}\n ROOT r = f32[960] reshape(c)",
      // The minor dimension of a column-major result is dimension 0.
      "x = f32[20,6]{0,1} parameter(0)\n y = f32[30,6]{0,1} parameter(1)\n"
      " ROOT c = f32[50,6]{0,1} concatenate(x, y), dimensions={0}",
      // Not split: another dimension, nine operands.  (A concatenate read
      // elsewhere too, as by the reverse here, gets a copy of its own from
      // fusion: the one read at the root's index is split.)
      "x = f32[20,6] parameter(0)\n y = f32[30,6] parameter(1)\n"
      " ROOT c = f32[50,6] concatenate(x, y), dimensions={0}",
      "x = f32[4,10] parameter(0)\n y = f32[4,30] parameter(1)\n"
      " c = f32[4,40] concatenate(x, y), dimensions={1}\n r = f32[4,40] reverse(c), "
      "dimensions={1}\n"
      " ROOT s = f32[4,40] add(c, r)",
      nine + "ROOT c = f32[5,63] concatenate(" + eight_names + ", p8), dimensions={1}",
  };
  CheckEachEntry("", modules);
}

// Padding kernels split their innermost loop at the edges of a pad along
// the result's minor dimension: both edges, one, negative ones (a crop),
// one cutting the whole operand away, padding of other dimensions (edges
// and interior) around it, a computed padding value, elementwise ops around
// it, 1- to 16-byte elements, rank 1 split across threads, another layout;
// and pads that are not split (interior padding along the minor dimension).
TEST(CpuOpsTest, PaddingKernelsMatchTheEvaluator) {
  const std::vector<std::string> modules = {
      "x = f32[30,100] parameter(0)\n z = f32[] constant(0)\n"
      " ROOT p = f32[36,110] pad(x, z), padding=3_3x5_5",
      "x = f32[30,100] parameter(0)\n z = f32[] constant(-1)\n"
      " ROOT p = f32[30,117] pad(x, z), padding=0_0x0_17",
      "x = f32[9,64] parameter(0)\n z = f32[] constant(2)\n"
      " ROOT p = f32[9,57] pad(x, z), padding=0_0x-10_3",
      "x = f32[9,64] parameter(0)\n z = f32[] constant(2)\n"
      " ROOT p = f32[9,54] pad(x, z), padding=0_0x4_-14",
      "x = f32[9,64] parameter(0)\n z = f32[] constant(2)\n"
      " ROOT p = f32[9,10] pad(x, z), padding=0_0x-70_16",
      "x = f32[4,5,33] parameter(0)\n z = f32[] constant(7)\n"
      " ROOT p = f32[8,9,40] pad(x, z), padding=1_0_1x-1_1_1x3_4",
      "x = f32[9,40] parameter(0)\n v = f32[] parameter(1)\n w = f32[9,48] parameter(2)\n"
      " z = f32[] negate(v)\n p = f32[9,48] pad(x, z), padding=0_0x5_3\n"
      " e = f32[9,48] exponential(p)\n ROOT s = f32[9,48] add(e, w)",
      "x = s8[3,33] parameter(0)\n z = s8[] constant(-3)\n"
      " ROOT p = s8[3,64] pad(x, z), padding=0_0x30_1",
      "x = f64[4,17] parameter(0)\n z = f64[] constant(0)\n"
      " ROOT p = f64[6,20] pad(x, z), padding=1_1x1_2",
      "x = c64[4,5] parameter(0)\n z = c64[] constant((1, 2))\n"
      " ROOT p = c64[4,11] pad(x, z), padding=0_0x3_3",
      "x = pred[6,9] parameter(0)\n z = pred[] constant(true)\n"
      " ROOT p = pred[6,49] pad(x, z), padding=0_0x20_20",
      "x = f32[1000] parameter(0)\n z = f32[] constant(1)\n"
      " ROOT p = f32[2025] pad(x, z), padding=1000_25",
      "x = f32[20,6]{0,1} parameter(0)\n z = f32[] constant(0)\n"
      " ROOT p = f32[22,10]{0,1} pad(x, z), padding=1_1x4_0",
      "x = f32[8,20] parameter(0)\n z = f32[] constant(0)\n"
      " ROOT p = f32[8,43] pad(x, z), padding=0_0x2_2_1",
  };
  CheckEachEntry("", modules);
}

// Slices with strides, read as rows and elements (loop_emitter.cc): along
// the rows and across them, strides 2 to 9 and past the vector width,
// sizes off it, rank 3, 1- to 16-byte elements, under elementwise ops and
// a broadcast, a column-major operand, and one row (rank 1).
TEST(CpuOpsTest, StridedSlicesMatchTheEvaluator) {
  const std::vector<std::string> modules = {
      "x = f32[64,4096] parameter(0)\n"
      " ROOT s = f32[32,2048] slice(x), slice={[0:64:2], [1:4096:2]}",
      "x = f32[30,1000] parameter(0)\n"
      " ROOT s = f32[30,333] slice(x), slice={[0:30], [2:1000:3]}",
      "x = f32[7,300] parameter(0)\n"
      " ROOT s = f32[2,33] slice(x), slice={[1:7:3], [5:300:9]}",
      "x = f32[4,5,1000] parameter(0)\n"
      " ROOT s = f32[2,5,27] slice(x), slice={[0:4:2], [0:5], [3:1000:37]}",
      "x = s8[9,200] parameter(0)\n ROOT s = s8[9,50] slice(x), slice={[0:9], [1:200:4]}",
      "x = bf16[9,200] parameter(0)\n ROOT s = bf16[9,67] slice(x), slice={[0:9], [0:200:3]}",
      "x = f64[9,100] parameter(0)\n ROOT s = f64[5,50] slice(x), slice={[0:9:2], [0:100:2]}",
      "x = c64[6,40] parameter(0)\n ROOT s = c64[6,20] slice(x), slice={[0:6], [1:40:2]}",
      "x = pred[6,90] parameter(0)\n ROOT s = pred[6,45] slice(x), slice={[0:6], [0:90:2]}",
      "x = f32[16,512] parameter(0)\n y = f32[16,256] parameter(1)\n"
      " a = f32[16,256] slice(x), slice={[0:16], [0:512:2]}\n"
      " b = f32[16,256] slice(x), slice={[0:16], [1:512:2]}\n"
      " ROOT r = f32[16,256] add(f32[16,256] multiply(a, y), f32[16,256] tanh(b))",
      "x = f32[512] parameter(0)\n s = f32[256] slice(x), slice={[1:512:2]}\n"
      " ROOT b = f32[8,256] broadcast(s), dimensions={1}",
      "x = f32[300,20]{0,1} parameter(0)\n"
      " ROOT s = f32[100,20]{0,1} slice(x), slice={[0:300:3], [0:20]}",
      "x = f32[2001] parameter(0)\n ROOT s = f32[1001] slice(x), slice={[0:2001:2]}",
  };
  CheckEachEntry("", modules);
}

// Scanning kernels (a reduce-window folding everything before each element
// along one dimension, or from it to the end) keep a running accumulator:
// along the minor, the major (one thread) and a middle dimension, sums,
// products and maxima of floats and integers, a window longer than the
// dimension, elementwise ops around it, more positions than fit the
// accumulators; and windows that are not scans, a
// scan read twice, and suffix scans whose folds the reversed order would
// change (float sums with reordering off, a non-commutative reducer),
// which are not planned.  Bit for bit: prefix scans fold in the
// evaluator's order, suffix scans only where any order gives the same.
TEST(CpuOpsTest, ScanningKernelsMatchTheEvaluator) {
  const std::string reducers =
      "add {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b)\n}\n"
      "mul {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
      " ROOT s = f32[] multiply(a, b)\n}\n"
      "max {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] maximum(a, b)\n}\n"
      "iadd {\n a = s32[] parameter(0)\n b = s32[] parameter(1)\n ROOT s = s32[] add(a, b)\n}\n"
      "dadd {\n a = f64[] parameter(0)\n b = f64[] parameter(1)\n ROOT s = f64[] add(a, b)\n}\n"
      "imax {\n a = s32[] parameter(0)\n b = s32[] parameter(1)\n"
      " ROOT s = s32[] maximum(a, b)\n}\n"
      "sub {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
      " ROOT s = f32[] subtract(a, b)\n}\n"
      // JAX's logaddexp (lax.cumlogsumexp): ops of other types between.
      "lae {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n d = f32[] subtract(a, b)\n"
      " unordered = pred[] compare(d, d), direction=NE\n s = f32[] add(a, b)\n"
      " m = f32[] maximum(a, b)\n k = f32[] abs(d)\n n = f32[] negate(k)\n"
      " e = f32[] exponential(n)\n l = f32[] log-plus-one(e)\n t = f32[] add(m, l)\n"
      " ROOT r = f32[] select(unordered, s, t)\n}\n";
  const std::vector<std::string> modules = {
      "x = f32[30,100] parameter(0)\n z = f32[] constant(0)\n"
      " ROOT c = f32[30,100] reduce-window(x, z), window={size=1x100 pad=0_0x99_0}, to_apply=add",
      "x = f32[64,37] parameter(0)\n z = f32[] constant(0)\n"
      " ROOT c = f32[64,37] reduce-window(x, z), window={size=64x1 pad=63_0x0_0}, to_apply=add",
      "x = f32[5,20,33] parameter(0)\n z = f32[] constant(1)\n"
      " ROOT c = f32[5,20,33] reduce-window(x, z), window={size=1x20x1 pad=0_0x19_0x0_0},"
      " to_apply=mul",
      "x = f32[300] parameter(0)\n z = f32[] constant(-inf)\n"
      " ROOT c = f32[300] reduce-window(x, z), window={size=300 pad=299_0}, to_apply=max",
      "x = s32[40,50] parameter(0)\n z = s32[] constant(0)\n"
      " ROOT c = s32[40,50] reduce-window(x, z), window={size=1x50 pad=0_0x49_0}, to_apply=iadd",
      "x = f64[12,70] parameter(0)\n z = f64[] constant(0)\n"
      " ROOT c = f64[12,70] reduce-window(x, z), window={size=1x90 pad=0_0x89_0}, to_apply=dadd",
      "x = f32[16,64] parameter(0)\n y = f32[16,64] parameter(1)\n z = f32[] constant(0)\n"
      " c = f32[16,64] reduce-window(x, z), window={size=1x64 pad=0_0x63_0}, to_apply=add\n"
      " e = f32[16,64] exponential(c)\n ROOT s = f32[16,64] add(e, y)",
      "x = f32[6,100] parameter(0)\n z = f32[] constant(-inf)\n"
      " ROOT c = f32[6,100] reduce-window(x, z), window={size=1x100 pad=0_0x99_0}, to_apply=lae",
      "x = f32[6,100] parameter(0)\n z = f32[] constant(-inf)\n"
      " ROOT r = f32[6] reduce(x, z), dimensions={1}, to_apply=lae",
      // Suffix scans of reducers exact in any order: along the minor, the
      // major and a middle dimension, a window longer than the dimension.
      "x = f32[6,100] parameter(0)\n z = f32[] constant(-inf)\n"
      " ROOT c = f32[6,100] reduce-window(x, z), window={size=1x100 pad=0_0x0_99}, to_apply=max",
      "x = s32[70,5] parameter(0)\n z = s32[] constant(0)\n"
      " ROOT c = s32[70,5] reduce-window(x, z), window={size=70x1 pad=0_69x0_0}, to_apply=iadd",
      "x = s32[3,20,17] parameter(0)\n z = s32[] constant(-5)\n"
      " ROOT c = s32[3,20,17] reduce-window(x, z), window={size=1x25x1 pad=0_0x0_24x0_0},"
      " to_apply=imax",
      "x = s32[130] parameter(0)\n z = s32[] constant(1)\n y = s32[130] parameter(1)\n"
      " c = s32[130] reduce-window(x, z), window={size=130 pad=0_129}, to_apply=iadd\n"
      " ROOT s = s32[130] multiply(c, y)",
      // More positions inside the scan than kMaxScanAccumulators: the
      // result's element before is the running value (along the major and
      // a middle dimension, prefix and suffix); under another op, not
      // planned.
      "x = f32[3,16400] parameter(0)\n z = f32[] constant(0)\n"
      " ROOT c = f32[3,16400] reduce-window(x, z), window={size=3x1 pad=2_0x0_0}, to_apply=add",
      "x = s32[2,3,16385] parameter(0)\n z = s32[] constant(0)\n"
      " ROOT c = s32[2,3,16385] reduce-window(x, z), window={size=1x3x1 pad=0_0x0_2x0_0},"
      " to_apply=iadd",
      "x = f32[3,16400] parameter(0)\n z = f32[] constant(0)\n"
      " c = f32[3,16400] reduce-window(x, z), window={size=3x1 pad=2_0x0_0}, to_apply=add\n"
      " ROOT n = f32[3,16400] negate(c)",
      // Not planned: a sliding window, a float suffix sum (reordering off),
      // a non-commutative suffix scan, a scan read twice.
      "x = f32[8,50] parameter(0)\n z = f32[] constant(0)\n"
      " ROOT c = f32[8,50] reduce-window(x, z), window={size=1x3 pad=0_0x2_0}, to_apply=add",
      "x = f32[8,50] parameter(0)\n z = f32[] constant(0)\n"
      " ROOT c = f32[8,50] reduce-window(x, z), window={size=1x50 pad=0_0x0_49}, to_apply=add",
      "x = f32[8,50] parameter(0)\n z = f32[] constant(0)\n"
      " ROOT c = f32[8,50] reduce-window(x, z), window={size=1x50 pad=0_0x0_49}, to_apply=sub",
      "x = f32[8,50] parameter(0)\n z = f32[] constant(0)\n"
      " c = f32[8,50] reduce-window(x, z), window={size=1x50 pad=0_0x49_0}, to_apply=add\n"
      " ROOT m = f32[8,50] multiply(c, c)",
  };
  CheckEachEntry(reducers, modules);
}

// Float suffix sums and products are planned where float reductions may be
// reordered (the default): they fold from the end, the reverse of the
// evaluator's order, so they match it to a relative tolerance (DotTolerance).
TEST(CpuOpsTest, FloatSuffixScansMatchTheEvaluatorReordered) {
  const std::string reducers =
      "add {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b)\n}\n"
      "mul {\n a = f64[] parameter(0)\n b = f64[] parameter(1)\n"
      " ROOT s = f64[] multiply(a, b)\n}\n";
  const std::vector<std::string> modules = {
      "x = f32[6,100] parameter(0)\n z = f32[] constant(0)\n"
      " ROOT c = f32[6,100] reduce-window(x, z), window={size=1x100 pad=0_0x0_99}, to_apply=add",
      "x = f32[64,5] parameter(0)\n z = f32[] constant(0)\n"
      " ROOT c = f32[64,5] reduce-window(x, z), window={size=64x1 pad=0_63x0_0}, to_apply=add",
      "x = f64[3,20,17] parameter(0)\n z = f64[] constant(1)\n"
      " ROOT c = f64[3,20,17] reduce-window(x, z), window={size=1x20x1 pad=0_0x0_19x0_0},"
      " to_apply=mul",
  };
  CheckEachEntry(reducers, modules, CpuCompileOptions());
}

// Transposing kernels whose result rows are longer than
// kTransposeTileMinRow loop over tiles of the two dimensions (the result's
// minor one, and the one the operand is contiguous along): whole tiles,
// partial ones at either edge and at the threads' boundaries, ranks 2 to 4,
// copies to another layout, what is fused with them, element widths from
// 1 to 16 bytes; and shorter rows, and operands read two ways, which are
// not tiled.
TEST(CpuOpsTest, TransposingKernelsMatchTheEvaluator) {
  const std::vector<std::string> modules = {
      // Whole tiles, and partial ones on either dimension or both.
      "x = f32[288,320] parameter(0)\n ROOT t = f32[320,288] transpose(x), dimensions={1,0}",
      "x = f32[300,520] parameter(0)\n ROOT t = f32[520,300] transpose(x), dimensions={1,0}",
      "x = f32[1025,17] parameter(0)\n ROOT t = f32[17,1025] transpose(x), dimensions={1,0}",
      "x = f32[259,20] parameter(0)\n ROOT t = f32[20,259] transpose(x), dimensions={1,0}",
      // Rank 3 and 4: the minor dimension swapped with the middle or the
      // major one, and batch dimensions around the tiles.
      "x = f32[3,270,40] parameter(0)\n ROOT t = f32[3,40,270] transpose(x), dimensions={0,2,1}",
      "x = f32[300,7,33] parameter(0)\n ROOT t = f32[33,7,300] transpose(x), dimensions={2,1,0}",
      // Short rows whose lines the next rows do not read (a dimension in
      // between): tiled too, whole and partial tiles, 4 and 1 bytes.
      "x = f32[16,50,64] parameter(0)\n ROOT t = f32[64,50,16] transpose(x), dimensions={2,1,0}",
      "x = f32[20,30,40] parameter(0)\n ROOT t = f32[40,30,20] transpose(x), dimensions={2,1,0}",
      "x = s8[5,20,33] parameter(0)\n ROOT t = s8[33,20,5] transpose(x), dimensions={2,1,0}",
      "x = f32[2,3,260,20] parameter(0)\n"
      " ROOT t = f32[3,20,2,260] transpose(x), dimensions={1,3,0,2}",
      // A copy to another layout, and a transposed operand under
      // elementwise ops with a contiguous one.
      "x = f32[70,300]{0,1} parameter(0)\n ROOT c = f32[70,300]{1,0} copy(x)",
      "x = f32[290,40] parameter(0)\n y = f32[40,290] parameter(1)\n"
      " t = f32[40,290] transpose(x), dimensions={1,0}\n e = f32[40,290] exponential(t)\n"
      " ROOT s = f32[40,290] add(e, y)",
      "x = s32[300,40] parameter(0)\n t = s32[40,300] transpose(x), dimensions={1,0}\n"
      " ROOT c = f32[40,300] convert(t)",
      // Widths 1, 2, 8 and 16 bytes, and PRED.
      "x = s8[265,33] parameter(0)\n ROOT t = s8[33,265] transpose(x), dimensions={1,0}",
      "x = bf16[300,40] parameter(0)\n ROOT t = bf16[40,300] transpose(x), dimensions={1,0}",
      "x = f64[280,24] parameter(0)\n ROOT t = f64[24,280] transpose(x), dimensions={1,0}",
      "x = c64[270,36] parameter(0)\n ROOT t = c64[36,270] transpose(x), dimensions={1,0}",
      "x = pred[300,40] parameter(0)\n ROOT t = pred[40,300] transpose(x), dimensions={1,0}",
      // Under a root reshape (JAX's ravel of a transpose: a bitcast to the
      // transposed layout, then a reshape), and under a root bitcast.
      "x = f32[300,300]{1,0} parameter(0)\n b = f32[300,300]{0,1} bitcast(x)\n"
      " ROOT r = f32[90000]{0} reshape(b)",
      "x = f32[260,300] parameter(0)\n t = f32[300,260] transpose(x), dimensions={1,0}\n"
      " ROOT r = f32[78000] reshape(t)",
      "x = f32[40,300] parameter(0)\n t = f32[300,40] transpose(x), dimensions={1,0}\n"
      " ROOT r = f32[12000]{0} bitcast(t)",
      // An operand also read elsewhere (reversed, reduced): tiles, the
      // operand read in place.
      "x = f32[300,40] parameter(0)\n t = f32[40,300] transpose(x), dimensions={1,0}\n"
      " r = f32[40,300] reverse(t), dimensions={0}\n ROOT s = f32[40,300] add(t, r)",
      "x = f32[300,40] parameter(0)\n t = f32[40,300] transpose(x), dimensions={1,0}\n"
      " z = f32[] constant(0)\n r = f32[300] reduce(x, z), dimensions={1}, to_apply=add\n"
      " b = f32[40,300] broadcast(r), dimensions={1}\n ROOT s = f32[40,300] add(t, b)",
      // Rows of at most kTransposeTileMinRow, and an operand read two ways:
      // no tiles, still right.
      "x = f32[64,48] parameter(0)\n ROOT t = f32[48,64] transpose(x), dimensions={1,0}",
      "x = f32[300,300] parameter(0)\n t = f32[300,300] transpose(x), dimensions={1,0}\n"
      " ROOT s = f32[300,300] add(x, t)",
  };
  CheckEachEntry(
      "add {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
      " ROOT s = f32[] add(a, b)\n}\n",
      modules);
}

// Rank-1 kernels split across threads: whole blocks of 256 bytes (a
// constant inner loop) and one scalar loop for the elements on either side
// of them, with and without streaming stores, sizes around the block (64
// f32s) and the partition boundary, element widths from 1 to 8 bytes, and
// polynomial tanh and erf (interleaved vector bodies).
TEST(CpuOpsTest, BlockedRangesMatchTheEvaluator) {
  for (const bool streamed : {false, true}) {
    CpuCompileOptions options;
    options.parallel_min_elements = 0;
    options.streaming_store_bytes = streamed ? 0 : int64_t{1} << 40;
    for (const std::string size :
         {"1", "7", "63", "64", "65", "127", "128", "129", "1025", "4099"}) {
      SCOPED_TRACE(absl::StrCat(size, streamed ? " streamed" : ""));
      Counts counts;
      for (const std::string function : {"tanh", "erf"}) {
        const std::string polynomial =
            absl::StrReplaceAll(R"(
HloModule blocked

ENTRY e {
  x = f32[SIZE] parameter(0)
  a = f32[] parameter(1)
  ab = f32[SIZE] broadcast(a), dimensions={}
  ax = f32[SIZE] multiply(ab, x)
  ROOT t = f32[SIZE] FUNCTION(ax)
}
)",
                                {{"SIZE", size}, {"FUNCTION", function}});
        SCOPED_TRACE(function);
        CheckModule(polynomial, {}, &counts, options);
        EXPECT_EQ(counts.fallback, 0) << Fallbacks(polynomial, options);
        EXPECT_EQ(counts.streaming, streamed ? 1 : 0);
      }
      for (const std::string type : {"f64", "f16", "s8", "u16", "s64"}) {
        const std::string text = absl::StrReplaceAll(R"(
HloModule blocked_ELT

ENTRY e {
  x = ELT[SIZE] parameter(0)
  y = ELT[SIZE] parameter(1)
  p = ELT[SIZE] multiply(x, y)
  ROOT r = ELT[SIZE] add(p, x)
}
)",
                                                     {{"SIZE", size}, {"ELT", type}});
        SCOPED_TRACE(type);
        CheckModule(text, {}, &counts, options);
        EXPECT_EQ(counts.fallback, 0) << Fallbacks(text, options);
      }
    }
  }
}

// Results written with non-temporal stores (forced at every size here):
// the aligned part, the head peeled before it (split over threads, chunks
// start anywhere), odd sizes, every element width, a column-major result.
TEST(CpuOpsTest, StreamedResultsMatchTheEvaluator) {
  CpuCompileOptions streaming = LibmMath();
  streaming.streaming_store_bytes = 0;
  streaming.parallel_min_elements = 0;
  for (const std::string shape :
       {"f32[1]", "f32[7]", "f32[1023]", "f32[1025]", "f32[33,1023]", "f32[33,1023]{0,1}",
        "f64[1025]", "f16[1025]", "bf16[515]", "s8[1025]", "u16[3,17]", "s64[129]"}) {
    SCOPED_TRACE(shape);
    const std::string text = absl::StrReplaceAll(R"(
HloModule streamed

ENTRY e {
  x = SHAPE parameter(0)
  y = SHAPE parameter(1)
  p = SHAPE multiply(x, y)
  ROOT r = SHAPE add(p, x)
}
)",
                                                 {{"SHAPE", shape}});
    Counts counts;
    CheckModule(text, {}, &counts, streaming);
    EXPECT_EQ(counts.fallback, 0);
    EXPECT_EQ(counts.streaming, 1);
  }
  // Polynomial tanh, as the elementwise benchmark computes it.
  CpuCompileOptions polynomial;
  polynomial.streaming_store_bytes = 0;
  polynomial.parallel_min_elements = 0;
  CheckModule(R"(
HloModule streamed_tanh

ENTRY e {
  x = f32[4099] parameter(0)
  a = f32[] parameter(1)
  ab = f32[4099] broadcast(a), dimensions={}
  ax = f32[4099] multiply(ab, x)
  ROOT t = f32[4099] tanh(ax)
}
)",
              {}, nullptr, polynomial);
  // A row kernel (softmax): rows reduced first, then each row streamed.
  const char* softmax = R"(
HloModule streamed_softmax

max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  x = f32[37,1025] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[37] reduce(x, ninf), dimensions={1}, to_apply=max
  mb = f32[37,1025] broadcast(m), dimensions={0}
  d = f32[37,1025] subtract(x, mb)
  ex = f32[37,1025] exponential(d)
  zero = f32[] constant(0)
  s = f32[37] reduce(ex, zero), dimensions={1}, to_apply=add
  sb = f32[37,1025] broadcast(s), dimensions={0}
  ROOT y = f32[37,1025] divide(ex, sb)
}
)";
  Counts counts;
  CheckModule(softmax, {}, &counts, polynomial);
  EXPECT_GE(counts.streaming, 1);
}

// lax.conv's NCHW/OIHW chain: layout assignment keeps the values between
// the convolutions NHWC (the kernels' own layouts); results unchanged.
TEST(CpuOpsTest, NchwConvolutionChainsMatchTheEvaluator) {
  const char* text = R"(
HloModule nchw_chain

ENTRY e {
  x = f32[2,3,9,9] parameter(0)
  k1 = f32[5,3,3,3] parameter(1)
  k2 = f32[4,5,3,3] parameter(2)
  b = f32[5] parameter(3)
  c1 = f32[2,5,9,9] convolution(x, k1), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01
  bb = f32[2,5,9,9] broadcast(b), dimensions={1}
  a1 = f32[2,5,9,9] add(c1, bb)
  zero = f32[] constant(0)
  zb = f32[2,5,9,9] broadcast(zero), dimensions={}
  r1 = f32[2,5,9,9] maximum(a1, zb)
  c2 = f32[2,4,5,5] convolution(r1, k2), window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01
  ROOT n = f32[2,4,5,5] negate(c2)
}
)";
  Counts counts;
  CheckModule(text, {}, &counts, LibmMath());
  EXPECT_EQ(counts.fallback, 0) << Fallbacks(text, LibmMath());
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable = CompileForCpu(*std::move(module));
  ASSERT_TRUE(executable.ok()) << executable.status();
  int nhwc = 0;
  for (const HloComputation* computation : (*executable)->module().computations()) {
    for (const HloInstruction* hlo : computation->instructions()) {
      if (hlo->opcode() == HloOpcode::kConvolution &&
          hlo->shape().layout().minor_to_major == std::vector<int64_t>{1, 3, 2, 0}) {
        ++nhwc;
      }
    }
  }
  EXPECT_EQ(nhwc, 1);  // c1; c2 is the root's
}

// Results stream from the threshold on, and are stored as usual below it.
TEST(CpuOpsTest, StreamingStartsAtTheThreshold) {
  const char* text = R"(
HloModule small

ENTRY e {
  x = f32[1024] parameter(0)
  ROOT n = f32[1024] negate(x)
}
)";
  CpuCompileOptions options;
  for (int64_t threshold : {4096, 4097}) {
    options.streaming_store_bytes = threshold;
    Counts counts;
    CheckModule(text, {}, &counts, options);
    EXPECT_EQ(counts.streaming, threshold <= 4096 ? 1 : 0) << threshold;
  }
}

}  // namespace
}  // namespace cpu
}  // namespace tessera
