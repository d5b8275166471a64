// TileCode's own checks of the items it is given (tile_kernel_test.cc
// checks the generated code's results against the JIT kernels', bit for
// bit), and a program run directly: a parameter's tile, a scale, a sum and
// a stored result over a tile whose length is not a multiple of the
// iteration's 64 elements.
#include "backends/cpu/tile_code.h"

#include <cmath>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xbyak/xbyak.h"

namespace tessera {
namespace cpu {
namespace {

using ::testing::HasSubstr;

TileLoopStep Multiply(int value, TileLoopStep::Operand a, TileLoopStep::Operand b) {
  TileLoopStep step;
  step.op = TileLoopStep::Op::kBinary;
  step.binary = tile_ops::BinaryOp::kMultiply;
  step.value = value;
  step.operands = {a, b};
  return step;
}

TileLoopStep Sum(int value, TileLoopStep::Operand x, int init_value, int64_t lanes) {
  TileLoopStep step;
  step.op = TileLoopStep::Op::kReduce;
  step.reduction = {tile_ops::BinaryOp::kAdd, /*accumulator_first=*/true, lanes};
  step.value = value;
  step.init_value = init_value;
  step.operands = {x};
  return step;
}

constexpr TileLoopStep::Operand Tile(int value) { return {TileLoopStep::Source::kTile, value}; }
constexpr TileLoopStep::Operand Scalar(int value) { return {TileLoopStep::Source::kScalar, value}; }
constexpr TileLoopStep::Operand Loop(int value) { return {TileLoopStep::Source::kLoop, value}; }

// buffers[parameter][row] = value's scalar.
TileScalarStep StoreRowElement(int value, int parameter) {
  TileScalarStep store;
  store.op = TileScalarStep::Op::kStoreRowElement;
  store.parameter = parameter;
  store.operands = {value};
  return store;
}

// A program of one loop.
absl::StatusOr<std::unique_ptr<TileCode>> CompileLoop(std::vector<TileLoopStep> steps) {
  std::vector<TileCodeItem> items(1);
  items[0].loop = std::move(steps);
  return TileCode::Compile(std::move(items), /*row_length=*/1);
}

TEST(TileCodeTest, RefusesOperandsThatAreNotEarlierLoopValues) {
  if (!TileCode::Supported()) GTEST_SKIP() << "the host has no AVX-512";
  absl::StatusOr<std::unique_ptr<TileCode>> later =
      CompileLoop({Multiply(2, Loop(3), Scalar(1)), Multiply(3, Tile(0), Scalar(1))});
  EXPECT_THAT(later.status().message(), HasSubstr("value 3 is not an earlier loop value"));
  // A reduce's value is a scalar once the loop has run, not a loop value.
  absl::StatusOr<std::unique_ptr<TileCode>> reduced =
      CompileLoop({Sum(2, Tile(0), 1, 64), Multiply(3, Loop(2), Scalar(1))});
  EXPECT_THAT(reduced.status().message(), HasSubstr("value 2 is not an earlier loop value"));
}

TEST(TileCodeTest, RefusesStepsDoneOnceWithoutTheirOperands) {
  if (!TileCode::Supported()) GTEST_SKIP() << "the host has no AVX-512";
  std::vector<TileCodeItem> items(1);
  items[0].step = TileScalarStep{TileScalarStep::Op::kStoreRowElement, 3, /*parameter=*/1};
  EXPECT_THAT(TileCode::Compile(items, 1).status().message(),
              HasSubstr("step 3 has 0 operands, not 1"));
  items[0].step->op = TileScalarStep::Op::kSelect;
  items[0].step->operands = {0, 1};
  EXPECT_THAT(TileCode::Compile(items, 1).status().message(),
              HasSubstr("step 3 has 2 operands, not 3"));
}

TEST(TileCodeTest, RefusesPassesOfNoRows) {
  if (!TileCode::Supported()) GTEST_SKIP() << "the host has no AVX-512";
  std::vector<TileCodeItem> items(1);
  items[0].loop = {Sum(2, Tile(0), 1, 64)};
  EXPECT_THAT(TileCode::Compile(items, 1, /*rows_per_pass=*/0).status().message(),
              HasSubstr("0 rows per pass"));
}

TEST(TileCodeTest, RefusesReducesOfOtherLaneCounts) {
  if (!TileCode::Supported()) GTEST_SKIP() << "the host has no AVX-512";
  EXPECT_THAT(CompileLoop({Sum(2, Tile(0), 1, 0)}).status().message(),
              HasSubstr("other than 16, 32 or 64 lanes"));
  EXPECT_THAT(CompileLoop({Sum(2, Tile(0), 1, 64), Sum(3, Tile(0), 1, 64), Sum(4, Tile(0), 1, 32)})
                  .status()
                  .message(),
              HasSubstr("more than 128 lanes"));
}

TEST(TileCodeTest, RunsScaleSumAndStoreOverAPartialIteration) {
  if (!TileCode::Supported()) GTEST_SKIP() << "the host has no AVX-512";
  // values: 0 row 1 of x (tile, from buffers[0] at start 3), 1 the scale
  // (buffers[1][0]), 2 the zero init, 3 x * scale (stored), 4 its sum.
  constexpr int kN = 100;
  constexpr int kRowLength = kN + 3;
  std::vector<TileCodeItem> items(4);
  items[0].step = TileScalarStep{TileScalarStep::Op::kRowTile, 0, /*parameter=*/0};
  items[1].step = TileScalarStep{TileScalarStep::Op::kFirstElement, 1, /*parameter=*/1};
  items[2].step = TileScalarStep{TileScalarStep::Op::kConstant, 2, -1, /*constant=*/0.0f};
  TileLoopStep scaled = Multiply(3, Tile(0), Scalar(1));
  scaled.store = true;
  items[3].loop = {scaled, Sum(4, Loop(3), 2, 32)};
  absl::StatusOr<std::unique_ptr<TileCode>> code = TileCode::Compile(items, kRowLength);
  ASSERT_TRUE(code.ok()) << code.status();
  std::vector<float> x(2 * kRowLength, -7.0f), scale = {0.5f}, out(kN + 1, -1.0f);
  for (int i = 0; i < kN; ++i) x[kRowLength + 3 + i] = static_cast<float>(i + 1);
  void* buffers[] = {x.data(), scale.data()};
  std::vector<TileValue> values(5);
  values[3].tile = out.data();
  (*code)->Run(values.data(), kN, buffers, /*row=*/1, /*start=*/3);
  for (int i = 0; i < kN; ++i) EXPECT_EQ(out[i], 0.5f * (i + 1)) << i;
  EXPECT_EQ(out[kN], -1.0f) << "wrote past the tile";
  // Halves of 1..100 sum exactly in any order.
  EXPECT_EQ(values[4].scalar, 2525.0f);
}

// RunRows: the program once per row of a range, in one call; a per-row
// result written to its row's element.
TEST(TileCodeTest, RunsRowsInOneCall) {
  if (!TileCode::Supported()) GTEST_SKIP() << "the host has no AVX-512";
  // values: 0 the row's tile of x (buffers[0]), 1 the zero init, 2 the
  // row's sum, stored to buffers[1][row].
  constexpr int kN = 70;
  constexpr int kRows = 5;
  std::vector<TileCodeItem> items(4);
  items[0].step = TileScalarStep{TileScalarStep::Op::kRowTile, 0, /*parameter=*/0};
  items[1].step = TileScalarStep{TileScalarStep::Op::kConstant, 1, -1, /*constant=*/0.0f};
  items[2].loop = {Sum(2, Tile(0), 1, 64)};
  items[3].step = StoreRowElement(2, /*parameter=*/1);
  absl::StatusOr<std::unique_ptr<TileCode>> code = TileCode::Compile(items, kN);
  ASSERT_TRUE(code.ok()) << code.status();
  std::vector<float> x(kRows * kN), sums(kRows, -1.0f);
  for (int i = 0; i < kRows * kN; ++i) x[i] = static_cast<float>(i / kN + 1);
  void* buffers[] = {x.data(), sums.data()};
  std::vector<TileValue> values(3);
  (*code)->RunRows(values.data(), kN, buffers, /*row=*/1, /*row_end=*/4, /*start=*/0);
  EXPECT_EQ(sums[0], -1.0f) << "ran a row before the range";
  for (int row = 1; row < 4; ++row) EXPECT_EQ(sums[row], kN * (row + 1.0f)) << row;
  EXPECT_EQ(sums[4], -1.0f) << "ran a row past the range";
  (*code)->RunRows(values.data(), kN, buffers, 4, 4, 0);
  EXPECT_EQ(sums[4], -1.0f) << "ran an empty range";
}

// One loop with a max of x and a min of y: each reduce notes its own NaNs
// (a mask register each), per row.  (Lanes past n computing NaN are
// tile_kernel_test's MaxAndMinReducesTrackNaNsRowByRow.)
// InterleaveRows: the program for three rows at a time, each row's copy on
// values of its own, over its own row: each row's scaled sum, as the
// program gives it row by row (rows 1 to 6: two passes).
TEST(TileCodeTest, InterleavedRowsEachRunTheirOwnRow) {
  if (!TileCode::Supported()) GTEST_SKIP() << "the host has no AVX-512";
  // values: 0 the row's tile of x (buffers[0]), 1 the scale (buffers[1]'s
  // element of the row), 2 the zero init, 3 x * scale, 4 its sum, stored
  // to buffers[2][row].
  constexpr int kN = 70;
  constexpr int kRows = 8;
  constexpr int kValues = 5;
  std::vector<TileCodeItem> items(5);
  items[0].step = TileScalarStep{TileScalarStep::Op::kRowTile, 0, /*parameter=*/0};
  items[1].step = TileScalarStep{TileScalarStep::Op::kRowElement, 1, /*parameter=*/1};
  items[2].step = TileScalarStep{TileScalarStep::Op::kConstant, 2, -1, /*constant=*/0.0f};
  items[3].loop = {Multiply(3, Tile(0), Scalar(1)), Sum(4, Loop(3), 2, 64)};
  items[4].step = StoreRowElement(4, /*parameter=*/2);
  const std::vector<TileCodeItem> interleaved = InterleaveRows(items, kValues, 3);
  ASSERT_EQ(interleaved.size(), 15u);
  EXPECT_EQ(interleaved[1].step->row_offset, 1);
  EXPECT_EQ(interleaved[1].step->value, kValues);
  EXPECT_EQ(interleaved[11].loop[1].operands[0].value, 2 * kValues + 3);
  EXPECT_EQ(interleaved[11].loop[1].init_value, 2 * kValues + 2);
  absl::StatusOr<std::unique_ptr<TileCode>> code =
      TileCode::Compile(interleaved, kN, /*rows_per_pass=*/3);
  ASSERT_TRUE(code.ok()) << code.status();
  std::vector<float> x(kRows * kN), scale(kRows), sums(kRows, -1.0f);
  // Row r: 1000 r + 1, ..., 1000 r + 70, scaled by r + 1 (sums exact in
  // any order).
  for (int i = 0; i < kRows * kN; ++i) x[i] = static_cast<float>(1000 * (i / kN) + i % kN + 1);
  for (int r = 0; r < kRows; ++r) scale[r] = static_cast<float>(r + 1);
  void* buffers[] = {x.data(), scale.data(), sums.data()};
  std::vector<TileValue> values(3 * kValues);
  (*code)->RunRows(values.data(), kN, buffers, /*row=*/1, /*row_end=*/7, /*start=*/0);
  EXPECT_EQ(sums[0], -1.0f) << "ran a row before the range";
  for (int r = 1; r < 7; ++r) EXPECT_EQ(sums[r], (r + 1) * (70000.0f * r + 2485)) << r;
  EXPECT_EQ(sums[7], -1.0f) << "ran a row past the range";
}

TEST(TileCodeTest, MaxAndMinOfOneLoopKeepTheirNaNsApart) {
  if (!TileCode::Supported()) GTEST_SKIP() << "the host has no AVX-512";
  // values: 0 and 1 the row's tiles of x and y, 2 and 3 the inits, 4 the
  // max of x and 5 the min of y, stored to buffers[2] and buffers[3].
  constexpr int kN = 70;
  constexpr int kRows = 3;
  std::vector<TileCodeItem> items(7);
  items[0].step = TileScalarStep{TileScalarStep::Op::kRowTile, 0, /*parameter=*/0};
  items[1].step = TileScalarStep{TileScalarStep::Op::kRowTile, 1, /*parameter=*/1};
  items[2].step = TileScalarStep{TileScalarStep::Op::kConstant, 2, -1, -INFINITY};
  items[3].step = TileScalarStep{TileScalarStep::Op::kConstant, 3, -1, INFINITY};
  TileLoopStep max = Sum(4, Tile(0), 2, 64), min = Sum(5, Tile(1), 3, 64);
  max.reduction.op = tile_ops::BinaryOp::kMaximum;
  min.reduction.op = tile_ops::BinaryOp::kMinimum;
  items[4].loop = {max, min};
  items[5].step = StoreRowElement(4, /*parameter=*/2);
  items[6].step = StoreRowElement(5, /*parameter=*/3);
  absl::StatusOr<std::unique_ptr<TileCode>> code = TileCode::Compile(items, kN);
  ASSERT_TRUE(code.ok()) << code.status();
  // Past the rows, NaNs the loads must not read.
  std::vector<float> x(kRows * kN + 64, NAN), y(kRows * kN + 64, NAN);
  for (int i = 0; i < kRows * kN; ++i) {
    x[i] = static_cast<float>(i % kN);
    y[i] = static_cast<float>(i % kN + 1);
  }
  x[kN + 5] = NAN;           // row 1 of x only
  y[2 * kN + kN - 1] = NAN;  // row 2 of y only, in the partial iteration
  std::vector<float> maxes(kRows), mins(kRows);
  void* buffers[] = {x.data(), y.data(), maxes.data(), mins.data()};
  std::vector<TileValue> values(6);
  (*code)->RunRows(values.data(), kN, buffers, 0, kRows, 0);
  for (int row = 0; row < kRows; ++row) {
    EXPECT_EQ(std::isnan(maxes[row]), row == 1) << row;
    if (row != 1) EXPECT_EQ(maxes[row], kN - 1.0f) << row;
    EXPECT_EQ(std::isnan(mins[row]), row == 2) << row;
    if (row != 2) EXPECT_EQ(mins[row], 1.0f) << row;
  }
}

// A stand-in for a <64 x float> math routine: 2v + 1 on zmm0..3, and
// every other register a call may clobber (vector, mask and general)
// clobbered, so that a value the generated code wrongly keeps across a
// call shows.
class DoublePlusOneRoutine : public Xbyak::CodeGenerator {
 public:
  DoublePlusOneRoutine() {
    mov(eax, 0x3f800000);  // 1.0f
    vpbroadcastd(zmm4, eax);
    for (int j = 0; j < 4; ++j) {
      vaddps(Xbyak::Zmm(j), Xbyak::Zmm(j), Xbyak::Zmm(j));
      vaddps(Xbyak::Zmm(j), Xbyak::Zmm(j), zmm4);
    }
    for (int r = 4; r < 32; ++r) vpternlogd(Xbyak::Zmm(r), Xbyak::Zmm(r), Xbyak::Zmm(r), 0xff);
    for (int k = 1; k < 8; ++k) kxnorw(Xbyak::Opmask(k), Xbyak::Opmask(k), Xbyak::Opmask(k));
    for (const Xbyak::Reg64& reg : {rax, rcx, rdx, rsi, rdi, r8, r9, r10, r11}) mov(reg, -1);
    ret();
    readyRE();
  }
  void* routine() { return reinterpret_cast<void*>(const_cast<uint8_t*>(getCode())); }
};

TileLoopStep Math(int value, TileLoopStep::Operand x, void* routine) {
  TileLoopStep step;
  step.op = TileLoopStep::Op::kMath;
  step.value = value;
  step.operands = {x};
  step.vector_routine = routine;
  return step;
}

TileLoopStep Add(int value, TileLoopStep::Operand a, TileLoopStep::Operand b) {
  TileLoopStep step = Multiply(value, a, b);
  step.binary = tile_ops::BinaryOp::kAdd;
  return step;
}

// Math steps' operands and results pass between phases in registers or
// temporaries; the routine clobbers all it may.  f(v) = 2v + 1 and small
// integers keep every value exact.
TEST(TileCodeTest, MathStepsPassValuesAcrossTheirCalls) {
  if (!TileCode::Supported()) GTEST_SKIP() << "the host has no AVX-512";
  DoublePlusOneRoutine f;
  // values: 0 x (tile), 1 the scale, 2 the zero init; 3 a = x * scale (a
  // routine's operand, read again later), 4 m1 = f(a) (stored; read by
  // the next routine and two phases later), 5 m2 = f(m1), 6 b = m1 * m2,
  // 7 c = b + a (stored), 8 the sum of c, 9 d = f(x) (a tile operand),
  // 10 p = x + scale (read only by the routine), 11 f(p).
  TileLoopStep m1 = Math(4, Loop(3), f.routine());
  m1.store = true;
  TileLoopStep c = Add(7, Loop(6), Loop(3));
  c.store = true;
  std::vector<TileLoopStep> loop = {Multiply(3, Tile(0), Scalar(1)),
                                    m1,
                                    Math(5, Loop(4), f.routine()),
                                    Multiply(6, Loop(4), Loop(5)),
                                    c,
                                    Sum(8, Loop(7), 2, 64),
                                    Math(9, Tile(0), f.routine()),
                                    Add(10, Tile(0), Scalar(1)),
                                    Math(11, Loop(10), f.routine())};
  loop[6].store = true;
  loop[8].store = true;
  for (int n : {1, 64, 100, 200}) {
    SCOPED_TRACE(n);
    absl::StatusOr<std::unique_ptr<TileCode>> code = CompileLoop(loop);
    ASSERT_TRUE(code.ok()) << code.status();
    std::vector<float> x(n), m1_out(n + 1, -1.0f), c_out(n + 1, -1.0f), d_out(n + 1, -1.0f),
        fp_out(n + 1, -1.0f);
    for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i % 7 - 3);
    std::vector<TileValue> values(12);
    values[0].tile = x.data();
    values[1].scalar = 2.0f;
    values[4].tile = m1_out.data();
    values[7].tile = c_out.data();
    values[9].tile = d_out.data();
    values[11].tile = fp_out.data();
    (*code)->Run(values.data(), n, nullptr, 0, 0);
    float sum = 0;
    for (int i = 0; i < n; ++i) {
      const float a = x[i] * 2.0f, m1_value = 2 * a + 1, m2 = 2 * m1_value + 1;
      const float c_value = m1_value * m2 + a;
      EXPECT_EQ(m1_out[i], m1_value) << i;
      EXPECT_EQ(c_out[i], c_value) << i;
      EXPECT_EQ(d_out[i], 2 * x[i] + 1) << i;
      EXPECT_EQ(fp_out[i], 2 * (x[i] + 2) + 1) << i;
      sum += c_value;
    }
    EXPECT_EQ(m1_out[n], -1.0f) << "wrote past the tile";
    EXPECT_EQ(c_out[n], -1.0f) << "wrote past the tile";
    EXPECT_EQ(d_out[n], -1.0f) << "wrote past the tile";
    EXPECT_EQ(fp_out[n], -1.0f) << "wrote past the tile";
    EXPECT_EQ(values[8].scalar, sum);
  }
}

}  // namespace
}  // namespace cpu
}  // namespace tessera
