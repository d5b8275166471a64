// Every opcode the parser supports, each in a small hand-written module: the
// instruction named %op must come out with the expected opcode, shape and
// operands.  A coverage test checks that the table names every opcode of
// the IR (scan is the one the parser refuses, with an error).
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/parser/hlo_parser.h"
#include "hlo/parser/hlo_parser_test_util.h"
#include "hlo/parser/hlo_text_util.h"

namespace tessera {
namespace {

using parser_test::FindInstruction;
using parser_test::ParseError;
using parser_test::ParseOk;
using ::testing::HasSubstr;

// Computations the ops below call.
constexpr absl::string_view kPrelude = R"(
%add_f32 (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %sum = f32[] add(%a, %b)
}

%ge_f32 (a: f32[], b: f32[]) -> pred[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %ge = pred[] compare(%a, %b), direction=GE
}

%lt_f32 (a: f32[], b: f32[]) -> pred[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %lt = pred[] compare(%a, %b), direction=LT
}

%negate_f32 (x: f32[4]) -> f32[4] {
  %x = f32[4]{0} parameter(0)
  ROOT %n = f32[4]{0} negate(%x)
}

%while_cond (s: s32[]) -> pred[] {
  %s = s32[] parameter(0)
  %ten = s32[] constant(10)
  ROOT %lt = pred[] compare(%s, %ten), direction=LT
}

%while_body (s: s32[]) -> s32[] {
  %s = s32[] parameter(0)
  %one = s32[] constant(1)
  ROOT %next = s32[] add(%s, %one)
}
)";

struct OpCase {
  HloOpcode opcode;
  std::string entry;  // the entry computation's instructions; %op is checked
  std::string shape;  // expected shape of %op (with layout)
  int operands;       // expected operand count of %op
};

std::string Module(const OpCase& c) {
  return absl::StrCat("HloModule ops\n", kPrelude, "\nENTRY %main {\n", c.entry, "\n}\n");
}

OpCase Unary(HloOpcode opcode, absl::string_view type = "f32") {
  const std::string name(HloOpcodeString(opcode));
  return {opcode,
          absl::StrCat("  %x = ", type, "[4]{0} parameter(0)\n  ROOT %op = ", type, "[4]{0} ", name,
                       "(%x)"),
          absl::StrCat(type, "[4]{0}"), 1};
}

OpCase Binary(HloOpcode opcode, absl::string_view type = "f32") {
  const std::string name(HloOpcodeString(opcode));
  return {opcode,
          absl::StrCat("  %x = ", type, "[4]{0} parameter(0)\n  %y = ", type,
                       "[4]{0} parameter(1)\n  ROOT %op = ", type, "[4]{0} ", name, "(%x, %y)"),
          absl::StrCat(type, "[4]{0}"), 2};
}

std::vector<OpCase> AllCases() {
  using O = HloOpcode;
  std::vector<OpCase> cases;
  for (O op : {O::kAbs,
               O::kAcos,
               O::kAcosh,
               O::kAsin,
               O::kAsinh,
               O::kAtan,
               O::kAtanh,
               O::kCbrt,
               O::kCeil,
               O::kCos,
               O::kCosh,
               O::kErf,
               O::kExp,
               O::kExpm1,
               O::kFloor,
               O::kLog,
               O::kLog1p,
               O::kLogistic,
               O::kNegate,
               O::kRoundNearestAfz,
               O::kRoundNearestEven,
               O::kRsqrt,
               O::kSign,
               O::kSin,
               O::kSinh,
               O::kSqrt,
               O::kTan,
               O::kTanh,
               O::kCopy,
               O::kOptimizationBarrier}) {
    cases.push_back(Unary(op));
  }
  for (O op : {O::kNot, O::kClz, O::kPopulationCount}) cases.push_back(Unary(op, "s32"));
  for (O op : {O::kAdd, O::kAtan2, O::kDivide, O::kMaximum, O::kMinimum, O::kMultiply, O::kPower,
               O::kRemainder, O::kSubtract}) {
    cases.push_back(Binary(op));
  }
  for (O op : {O::kAnd, O::kOr, O::kXor, O::kShiftLeft, O::kShiftRightArithmetic,
               O::kShiftRightLogical, O::kMulhi}) {
    cases.push_back(Binary(op, "s32"));
  }
  auto add = [&](O opcode, std::string entry, std::string shape, int operands) {
    cases.push_back({opcode, std::move(entry), std::move(shape), operands});
  };
  add(O::kReal, "  %x = c64[4]{0} parameter(0)\n  ROOT %op = f32[4]{0} real(%x)", "f32[4]{0}", 1);
  add(O::kImag, "  %x = c64[4]{0} parameter(0)\n  ROOT %op = f32[4]{0} imag(%x)", "f32[4]{0}", 1);
  add(O::kIsFinite, "  %x = f32[4]{0} parameter(0)\n  ROOT %op = pred[4]{0} is-finite(%x)",
      "pred[4]{0}", 1);
  add(O::kComplex,
      "  %x = f32[4]{0} parameter(0)\n  %y = f32[4]{0} parameter(1)\n"
      "  ROOT %op = c64[4]{0} complex(%x, %y)",
      "c64[4]{0}", 2);
  add(O::kCompare,
      "  %x = f32[4]{0} parameter(0)\n  %y = f32[4]{0} parameter(1)\n"
      "  ROOT %op = pred[4]{0} compare(%x, %y), direction=LT",
      "pred[4]{0}", 2);
  add(O::kConvert, "  %x = f32[4]{0} parameter(0)\n  ROOT %op = s32[4]{0} convert(%x)", "s32[4]{0}",
      1);
  add(O::kBitcastConvert,
      "  %x = f32[4]{0} parameter(0)\n  ROOT %op = u32[4]{0} bitcast-convert(%x)", "u32[4]{0}", 1);
  add(O::kStochasticConvert,
      "  %x = f32[4]{0} parameter(0)\n  %r = u32[4]{0} parameter(1)\n"
      "  ROOT %op = s8[4]{0} stochastic-convert(%x, %r)",
      "s8[4]{0}", 2);
  add(O::kReducePrecision,
      "  %x = f32[4]{0} parameter(0)\n"
      "  ROOT %op = f32[4]{0} reduce-precision(%x), exponent_bits=5, mantissa_bits=10",
      "f32[4]{0}", 1);
  add(O::kSelect,
      "  %p = pred[4]{0} parameter(0)\n  %x = f32[4]{0} parameter(1)\n"
      "  %y = f32[4]{0} parameter(2)\n  ROOT %op = f32[4]{0} select(%p, %x, %y)",
      "f32[4]{0}", 3);
  add(O::kClamp,
      "  %lo = f32[] parameter(0)\n  %x = f32[4]{0} parameter(1)\n  %hi = f32[] parameter(2)\n"
      "  ROOT %op = f32[4]{0} clamp(%lo, %x, %hi)",
      "f32[4]{0}", 3);
  add(O::kMap,
      "  %x = f32[4]{0} parameter(0)\n  %y = f32[4]{0} parameter(1)\n"
      "  ROOT %op = f32[4]{0} map(%x, %y), dimensions={0}, to_apply=%add_f32",
      "f32[4]{0}", 2);
  add(O::kParameter, "  ROOT %op = f32[2,3]{1,0} parameter(0)", "f32[2,3]{1,0}", 0);
  add(O::kConstant, "  ROOT %op = f32[2]{0} constant({1, 2})", "f32[2]{0}", 0);
  add(O::kIota, "  ROOT %op = s32[2,3]{1,0} iota(), iota_dimension=1", "s32[2,3]{1,0}", 0);
  add(O::kPartitionId, "  ROOT %op = u32[] partition-id()", "u32[]", 0);
  add(O::kReplicaId, "  ROOT %op = u32[] replica-id()", "u32[]", 0);
  add(O::kAfterAll,
      "  %t0 = token[] after-all()\n  %t1 = token[] after-all()\n"
      "  ROOT %op = token[] after-all(%t0, %t1)",
      "token[]", 2);
  add(O::kAddDependency,
      "  %x = f32[4]{0} parameter(0)\n  %t = token[] after-all()\n"
      "  ROOT %op = f32[4]{0} add-dependency(%x, %t)",
      "f32[4]{0}", 2);
  add(O::kBitcast, "  %x = f32[2,3]{1,0} parameter(0)\n  ROOT %op = f32[6]{0} bitcast(%x)",
      "f32[6]{0}", 1);
  add(O::kReshape, "  %x = f32[2,3]{1,0} parameter(0)\n  ROOT %op = f32[3,2]{1,0} reshape(%x)",
      "f32[3,2]{1,0}", 1);
  add(O::kDynamicReshape,
      "  %x = f32[6]{0} parameter(0)\n  %d0 = s32[] parameter(1)\n  %d1 = s32[] parameter(2)\n"
      "  ROOT %op = f32[<=6,<=6]{1,0} dynamic-reshape(%x, %d0, %d1)",
      "f32[<=6,<=6]{1,0}", 3);
  add(O::kTranspose,
      "  %x = f32[2,3]{1,0} parameter(0)\n"
      "  ROOT %op = f32[3,2]{1,0} transpose(%x), dimensions={1,0}",
      "f32[3,2]{1,0}", 1);
  add(O::kReverse,
      "  %x = f32[2,3]{1,0} parameter(0)\n  ROOT %op = f32[2,3]{1,0} reverse(%x), dimensions={0}",
      "f32[2,3]{1,0}", 1);
  add(O::kBroadcast,
      "  %x = f32[3]{0} parameter(0)\n"
      "  ROOT %op = f32[2,3]{1,0} broadcast(%x), dimensions={1}",
      "f32[2,3]{1,0}", 1);
  add(O::kConcatenate,
      "  %x = f32[2]{0} parameter(0)\n  %y = f32[3]{0} parameter(1)\n"
      "  ROOT %op = f32[5]{0} concatenate(%x, %y), dimensions={0}",
      "f32[5]{0}", 2);
  add(O::kSlice, "  %x = f32[8]{0} parameter(0)\n  ROOT %op = f32[3]{0} slice(%x), slice={[1:7:2]}",
      "f32[3]{0}", 1);
  add(O::kDynamicSlice,
      "  %x = f32[8]{0} parameter(0)\n  %i = s32[] parameter(1)\n"
      "  ROOT %op = f32[2]{0} dynamic-slice(%x, %i), dynamic_slice_sizes={2}",
      "f32[2]{0}", 2);
  add(O::kDynamicUpdateSlice,
      "  %x = f32[8]{0} parameter(0)\n  %u = f32[2]{0} parameter(1)\n  %i = s32[] parameter(2)\n"
      "  ROOT %op = f32[8]{0} dynamic-update-slice(%x, %u, %i)",
      "f32[8]{0}", 3);
  add(O::kPad,
      "  %x = f32[4]{0} parameter(0)\n  %z = f32[] constant(0)\n"
      "  ROOT %op = f32[9]{0} pad(%x, %z), padding=1_1_1",
      "f32[9]{0}", 2);
  add(O::kGather,
      "  %x = f32[3,3]{1,0} parameter(0)\n  %i = s32[2]{0} parameter(1)\n"
      "  ROOT %op = f32[2,3]{1,0} gather(%x, %i), offset_dims={1}, collapsed_slice_dims={0}, "
      "start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}",
      "f32[2,3]{1,0}", 2);
  add(O::kScatter,
      "  %x = f32[3,3]{1,0} parameter(0)\n  %i = s32[2]{0} parameter(1)\n"
      "  %u = f32[2,3]{1,0} parameter(2)\n"
      "  ROOT %op = f32[3,3]{1,0} scatter(%x, %i, %u), update_window_dims={1}, "
      "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, "
      "to_apply=%add_f32",
      "f32[3,3]{1,0}", 3);
  add(O::kDot,
      "  %x = f32[2,3]{1,0} parameter(0)\n  %y = f32[3,4]{1,0} parameter(1)\n"
      "  ROOT %op = f32[2,4]{1,0} dot(%x, %y), lhs_contracting_dims={1}, "
      "rhs_contracting_dims={0}",
      "f32[2,4]{1,0}", 2);
  add(O::kRaggedDot,
      "  %x = f32[8,3]{1,0} parameter(0)\n  %y = f32[2,3,4]{2,1,0} parameter(1)\n"
      "  %g = s32[2]{0} parameter(2)\n"
      "  ROOT %op = f32[8,4]{1,0} ragged-dot(%x, %y, %g), lhs_contracting_dims={1}, "
      "rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}",
      "f32[8,4]{1,0}", 3);
  add(O::kScaledDot,
      "  %x = f32[2,3]{1,0} parameter(0)\n  %y = f32[3,4]{1,0} parameter(1)\n"
      "  %xs = f32[2,1]{1,0} parameter(2)\n  %ys = f32[1,4]{1,0} parameter(3)\n"
      "  ROOT %op = f32[2,4]{1,0} scaled-dot(%x, %y, %xs, %ys), lhs_contracting_dims={1}, "
      "rhs_contracting_dims={0}",
      "f32[2,4]{1,0}", 4);
  add(O::kConvolution,
      "  %x = f32[1,5,5,1]{3,2,1,0} parameter(0)\n  %k = f32[3,3,1,1]{3,2,1,0} parameter(1)\n"
      "  ROOT %op = f32[1,5,5,1]{3,2,1,0} convolution(%x, %k), window={size=3x3 pad=1_1x1_1}, "
      "dim_labels=b01f_01io->b01f",
      "f32[1,5,5,1]{3,2,1,0}", 2);
  add(O::kFft,
      "  %x = c64[8]{0} parameter(0)\n  ROOT %op = c64[8]{0} fft(%x), fft_type=FFT, "
      "fft_length={8}",
      "c64[8]{0}", 1);
  add(O::kCholesky,
      "  %x = f32[3,3]{1,0} parameter(0)\n  ROOT %op = f32[3,3]{1,0} cholesky(%x), lower=true",
      "f32[3,3]{1,0}", 1);
  add(O::kTriangularSolve,
      "  %a = f32[3,3]{1,0} parameter(0)\n  %b = f32[3,2]{1,0} parameter(1)\n"
      "  ROOT %op = f32[3,2]{1,0} triangular-solve(%a, %b), left_side=true, lower=true, "
      "transpose_a=NO_TRANSPOSE",
      "f32[3,2]{1,0}", 2);
  add(O::kReduce,
      "  %x = f32[2,3]{1,0} parameter(0)\n  %z = f32[] constant(0)\n"
      "  ROOT %op = f32[2]{0} reduce(%x, %z), dimensions={1}, to_apply=%add_f32",
      "f32[2]{0}", 2);
  add(O::kReduceWindow,
      "  %x = f32[4]{0} parameter(0)\n  %z = f32[] constant(0)\n"
      "  ROOT %op = f32[2]{0} reduce-window(%x, %z), window={size=2 stride=2}, "
      "to_apply=%add_f32",
      "f32[2]{0}", 2);
  add(O::kSelectAndScatter,
      "  %x = f32[4]{0} parameter(0)\n  %s = f32[2]{0} parameter(1)\n  %z = f32[] constant(0)\n"
      "  ROOT %op = f32[4]{0} select-and-scatter(%x, %s, %z), window={size=2 stride=2}, "
      "select=%ge_f32, scatter=%add_f32",
      "f32[4]{0}", 3);
  add(O::kSort,
      "  %x = f32[4]{0} parameter(0)\n"
      "  ROOT %op = f32[4]{0} sort(%x), dimensions={0}, is_stable=true, to_apply=%lt_f32",
      "f32[4]{0}", 1);
  add(O::kTopK,
      "  %x = f32[8]{0} parameter(0)\n"
      "  ROOT %op = (f32[2]{0}, s32[2]{0}) topk(%x), k=2, largest=true",
      "(f32[2]{0}, s32[2]{0})", 1);
  add(O::kTuple,
      "  %x = f32[4]{0} parameter(0)\n  %y = s32[] parameter(1)\n"
      "  ROOT %op = (f32[4]{0}, s32[]) tuple(%x, %y)",
      "(f32[4]{0}, s32[])", 2);
  add(O::kGetTupleElement,
      "  %t = (f32[4]{0}, s32[]) parameter(0)\n"
      "  ROOT %op = s32[] get-tuple-element(%t), index=1",
      "s32[]", 1);
  add(O::kWhile,
      "  %x = s32[] parameter(0)\n"
      "  ROOT %op = s32[] while(%x), condition=%while_cond, body=%while_body",
      "s32[]", 1);
  add(O::kConditional,
      "  %p = pred[] parameter(0)\n  %x = f32[4]{0} parameter(1)\n"
      "  ROOT %op = f32[4]{0} conditional(%p, %x, %x), true_computation=%negate_f32, "
      "false_computation=%negate_f32",
      "f32[4]{0}", 3);
  add(O::kCall,
      "  %x = f32[4]{0} parameter(0)\n  ROOT %op = f32[4]{0} call(%x), to_apply=%negate_f32",
      "f32[4]{0}", 1);
  add(O::kFusion,
      "  %x = f32[4]{0} parameter(0)\n"
      "  ROOT %op = f32[4]{0} fusion(%x), kind=kLoop, calls=%negate_f32",
      "f32[4]{0}", 1);
  add(O::kCustomCall,
      "  %x = f32[4]{0} parameter(0)\n"
      "  ROOT %op = f32[4]{0} custom-call(%x), custom_call_target=\"foo\"",
      "f32[4]{0}", 1);
  add(O::kDomain,
      "  %x = f32[4]{0} parameter(0)\n"
      "  ROOT %op = f32[4]{0} domain(%x), domain={kind=\"sharding\", entry={maximal device=0}, "
      "exit={replicated}}",
      "f32[4]{0}", 1);
  add(O::kGetDimensionSize,
      "  %x = f32[<=4]{0} parameter(0)\n  ROOT %op = s32[] get-dimension-size(%x), dimensions={0}",
      "s32[]", 1);
  add(O::kSetDimensionSize,
      "  %x = f32[4]{0} parameter(0)\n  %n = s32[] parameter(1)\n"
      "  ROOT %op = f32[<=4]{0} set-dimension-size(%x, %n), dimensions={0}",
      "f32[<=4]{0}", 2);
  add(O::kRng,
      "  %lo = f32[] constant(0)\n  %hi = f32[] constant(1)\n"
      "  ROOT %op = f32[4]{0} rng(%lo, %hi), distribution=rng_uniform",
      "f32[4]{0}", 2);
  add(O::kRngBitGenerator,
      "  %s = u64[2]{0} parameter(0)\n"
      "  ROOT %op = (u64[2]{0}, u32[4]{0}) rng-bit-generator(%s), algorithm=rng_three_fry",
      "(u64[2]{0}, u32[4]{0})", 1);
  add(O::kRngGetAndUpdateState, "  ROOT %op = u64[2]{0} rng-get-and-update-state(), delta=4096",
      "u64[2]{0}", 0);
  add(O::kBatchNormTraining,
      "  %x = f32[2,3]{1,0} parameter(0)\n  %s = f32[3]{0} parameter(1)\n"
      "  %o = f32[3]{0} parameter(2)\n"
      "  ROOT %op = (f32[2,3]{1,0}, f32[3]{0}, f32[3]{0}) batch-norm-training(%x, %s, %o), "
      "epsilon=0.001, feature_index=1",
      "(f32[2,3]{1,0}, f32[3]{0}, f32[3]{0})", 3);
  add(O::kBatchNormInference,
      "  %x = f32[2,3]{1,0} parameter(0)\n  %s = f32[3]{0} parameter(1)\n"
      "  %o = f32[3]{0} parameter(2)\n  %m = f32[3]{0} parameter(3)\n"
      "  %v = f32[3]{0} parameter(4)\n"
      "  ROOT %op = f32[2,3]{1,0} batch-norm-inference(%x, %s, %o, %m, %v), epsilon=0.001, "
      "feature_index=1",
      "f32[2,3]{1,0}", 5);
  add(O::kBatchNormGrad,
      "  %x = f32[2,3]{1,0} parameter(0)\n  %s = f32[3]{0} parameter(1)\n"
      "  %m = f32[3]{0} parameter(2)\n  %v = f32[3]{0} parameter(3)\n"
      "  %g = f32[2,3]{1,0} parameter(4)\n"
      "  ROOT %op = (f32[2,3]{1,0}, f32[3]{0}, f32[3]{0}) batch-norm-grad(%x, %s, %m, %v, %g), "
      "epsilon=0.001, feature_index=1",
      "(f32[2,3]{1,0}, f32[3]{0}, f32[3]{0})", 5);
  add(O::kInfeed,
      "  %t = token[] after-all()\n"
      "  ROOT %op = ((f32[4]{0}), token[]) infeed(%t), infeed_config=\"cfg\"",
      "((f32[4]{0}), token[])", 1);
  add(O::kOutfeed,
      "  %x = f32[4]{0} parameter(0)\n  %t = token[] after-all()\n"
      "  ROOT %op = token[] outfeed(%x, %t), outfeed_shape=f32[4]{0}, outfeed_config=\"cfg\"",
      "token[]", 2);
  add(O::kSend,
      "  %x = f32[4]{0} parameter(0)\n  %t = token[] after-all()\n"
      "  %op = (f32[4]{0}, u32[], token[]) send(%x, %t), channel_id=1\n"
      "  ROOT %done = token[] send-done(%op), channel_id=1",
      "(f32[4]{0}, u32[], token[])", 2);
  add(O::kSendDone,
      "  %x = f32[4]{0} parameter(0)\n  %t = token[] after-all()\n"
      "  %send = (f32[4]{0}, u32[], token[]) send(%x, %t), channel_id=1\n"
      "  ROOT %op = token[] send-done(%send), channel_id=1",
      "token[]", 1);
  add(O::kRecv,
      "  %t = token[] after-all()\n"
      "  %op = (f32[4]{0}, u32[], token[]) recv(%t), channel_id=2, is_host_transfer=true\n"
      "  ROOT %done = (f32[4]{0}, token[]) recv-done(%op), channel_id=2, is_host_transfer=true",
      "(f32[4]{0}, u32[], token[])", 1);
  add(O::kRecvDone,
      "  %t = token[] after-all()\n"
      "  %recv = (f32[4]{0}, u32[], token[]) recv(%t), channel_id=2\n"
      "  ROOT %op = (f32[4]{0}, token[]) recv-done(%recv), channel_id=2",
      "(f32[4]{0}, token[])", 1);
  add(O::kCopyStart,
      "  %x = f32[4]{0} parameter(0)\n"
      "  %op = (f32[4]{0}, f32[4]{0}, u32[]) copy-start(%x), cross_program_prefetch_index=0\n"
      "  ROOT %done = f32[4]{0} copy-done(%op)",
      "(f32[4]{0}, f32[4]{0}, u32[])", 1);
  add(O::kCopyDone,
      "  %x = f32[4]{0} parameter(0)\n"
      "  %start = (f32[4]{0}, f32[4]{0}, u32[]) copy-start(%x)\n"
      "  ROOT %op = f32[4]{0} copy-done(%start)",
      "f32[4]{0}", 1);
  add(O::kAllReduce,
      "  %x = f32[4]{0} parameter(0)\n"
      "  ROOT %op = f32[4]{0} all-reduce(%x), replica_groups={{0,1}}, to_apply=%add_f32",
      "f32[4]{0}", 1);
  add(O::kAllReduceStart,
      "  %x = f32[4]{0} parameter(0)\n"
      "  %op = f32[4]{0} all-reduce-start(%x), replica_groups={}, to_apply=%add_f32\n"
      "  ROOT %done = f32[4]{0} all-reduce-done(%op)",
      "f32[4]{0}", 1);
  add(O::kAllReduceDone,
      "  %x = f32[4]{0} parameter(0)\n"
      "  %start = f32[4]{0} all-reduce-start(%x), replica_groups={}, to_apply=%add_f32\n"
      "  ROOT %op = f32[4]{0} all-reduce-done(%start)",
      "f32[4]{0}", 1);
  add(O::kAllGather,
      "  %x = f32[4]{0} parameter(0)\n"
      "  ROOT %op = f32[8]{0} all-gather(%x), replica_groups={{0,1}}, dimensions={0}",
      "f32[8]{0}", 1);
  add(O::kAllGatherStart,
      "  %x = f32[4]{0} parameter(0)\n"
      "  %op = (f32[4]{0}, f32[8]{0}) all-gather-start(%x), replica_groups={{0,1}}, "
      "dimensions={0}\n"
      "  ROOT %done = f32[8]{0} all-gather-done(%op)",
      "(f32[4]{0}, f32[8]{0})", 1);
  add(O::kAllGatherDone,
      "  %x = f32[4]{0} parameter(0)\n"
      "  %start = (f32[4]{0}, f32[8]{0}) all-gather-start(%x), replica_groups={{0,1}}, "
      "dimensions={0}\n"
      "  ROOT %op = f32[8]{0} all-gather-done(%start)",
      "f32[8]{0}", 1);
  add(O::kAllToAll,
      "  %x = f32[4]{0} parameter(0)\n"
      "  ROOT %op = f32[4]{0} all-to-all(%x), replica_groups={{0,1}}, dimensions={0}",
      "f32[4]{0}", 1);
  add(O::kRaggedAllToAll,
      "  %x = f32[4]{0} parameter(0)\n  %o = f32[4]{0} parameter(1)\n"
      "  %a = s64[2]{0} parameter(2)\n  %b = s64[2]{0} parameter(3)\n"
      "  %c = s64[2]{0} parameter(4)\n  %d = s64[2]{0} parameter(5)\n"
      "  ROOT %op = f32[4]{0} ragged-all-to-all(%x, %o, %a, %b, %c, %d), "
      "replica_groups={{0,1}}",
      "f32[4]{0}", 6);
  add(O::kReduceScatter,
      "  %x = f32[4]{0} parameter(0)\n"
      "  ROOT %op = f32[2]{0} reduce-scatter(%x), replica_groups={{0,1}}, dimensions={0}, "
      "to_apply=%add_f32",
      "f32[2]{0}", 1);
  add(O::kCollectiveReduce,
      "  %x = f32[4]{0} parameter(0)\n"
      "  ROOT %op = f32[4]{0} collective-reduce(%x), replica_groups={{0,1}}, to_apply=%add_f32",
      "f32[4]{0}", 1);
  add(O::kCollectiveBroadcast,
      "  %x = f32[4]{0} parameter(0)\n"
      "  ROOT %op = f32[4]{0} collective-broadcast(%x), replica_groups={{0,1}}",
      "f32[4]{0}", 1);
  add(O::kCollectivePermute,
      "  %x = f32[4]{0} parameter(0)\n"
      "  ROOT %op = f32[4]{0} collective-permute(%x), source_target_pairs={{0,1},{1,0}}",
      "f32[4]{0}", 1);
  add(O::kCollectivePermuteStart,
      "  %x = f32[4]{0} parameter(0)\n"
      "  %op = (f32[4]{0}, f32[4]{0}) collective-permute-start(%x), "
      "source_target_pairs={{0,1}}\n"
      "  ROOT %done = f32[4]{0} collective-permute-done(%op)",
      "(f32[4]{0}, f32[4]{0})", 1);
  add(O::kCollectivePermuteDone,
      "  %x = f32[4]{0} parameter(0)\n"
      "  %start = (f32[4]{0}, f32[4]{0}) collective-permute-start(%x), "
      "source_target_pairs={{0,1}}\n"
      "  ROOT %op = f32[4]{0} collective-permute-done(%start)",
      "f32[4]{0}", 1);
  add(O::kAsyncStart,
      "  %x = f32[4]{0} parameter(0)\n"
      "  %op = ((f32[4]{0}), f32[4]{0}, s32[]) async-start(%x), calls=%negate_f32\n"
      "  %update = ((f32[4]{0}), f32[4]{0}, s32[]) async-update(%op)\n"
      "  ROOT %done = f32[4]{0} async-done(%update)",
      "((f32[4]{0}), f32[4]{0}, s32[])", 1);
  add(O::kAsyncUpdate,
      "  %x = f32[4]{0} parameter(0)\n"
      "  %start = ((f32[4]{0}), f32[4]{0}, s32[]) async-start(%x), calls=%negate_f32\n"
      "  %op = ((f32[4]{0}), f32[4]{0}, s32[]) async-update(%start)\n"
      "  ROOT %done = f32[4]{0} async-done(%op)",
      "((f32[4]{0}), f32[4]{0}, s32[])", 1);
  add(O::kAsyncDone,
      "  %x = f32[4]{0} parameter(0)\n"
      "  %start = ((f32[4]{0}), f32[4]{0}, s32[]) async-start(%x), calls=%negate_f32\n"
      "  ROOT %op = f32[4]{0} async-done(%start)",
      "f32[4]{0}", 1);
  add(O::kShuffle, "  %x = f32[4]{0} parameter(0)\n  ROOT %op = f32[4]{0} shuffle(%x)", "f32[4]{0}",
      1);
  return cases;
}

class OpcodeTest : public ::testing::TestWithParam<OpCase> {};

TEST_P(OpcodeTest, ParsesWithOpcodeShapeAndOperands) {
  const OpCase& c = GetParam();
  auto module = ParseOk(Module(c));
  ASSERT_NE(module, nullptr);
  HloInstruction* op = FindInstruction(*module, "op");
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->opcode(), c.opcode);
  EXPECT_EQ(ShapeToText(op->shape(), /*print_layout=*/true), c.shape);
  EXPECT_EQ(op->operand_count(), c.operands);
  EXPECT_EQ(op->parent(), module->entry_computation());
}

INSTANTIATE_TEST_SUITE_P(
    AllOpcodes, OpcodeTest, ::testing::ValuesIn(AllCases()),
    [](const ::testing::TestParamInfo<OpCase>& info) {
      std::string name = absl::StrReplaceAll(HloOpcodeString(info.param.opcode), {{"-", "_"}});
      return absl::StrCat(name, "_", info.index);
    });

TEST(OpcodeCoverageTest, EveryOpcodeButScanIsCovered) {
  std::set<HloOpcode> covered;
  for (const OpCase& c : AllCases()) covered.insert(c.opcode);
  for (int i = 0; i < kHloOpcodeCount; ++i) {
    const HloOpcode opcode = static_cast<HloOpcode>(i);
    if (opcode == HloOpcode::kScan) continue;
    EXPECT_TRUE(covered.contains(opcode)) << "no parser test for " << HloOpcodeString(opcode);
  }
}

TEST(OpcodeCoverageTest, ScanIsRefusedWithAnError) {
  absl::Status status = ParseError(
      "ENTRY %main {\n  %x = f32[4]{0} parameter(0)\n  ROOT %s = f32[4]{0} scan(%x)\n}\n");
  EXPECT_THAT(parser_test::Message(status), HasSubstr("line 3, column 23: scan is not supported"));
}

// Elementwise ops may leave out their result shape, as XLA's parser allows.
TEST(OpcodeTest, InfersResultShapesOfSimpleOps) {
  auto module = ParseOk(R"(
ENTRY %main {
  %x = f32[2,3]{0,1} parameter(0)
  %y = f32[2,3]{0,1} parameter(1)
  %sum = add(%x, %y)
  %less = compare(%x, %y), direction=LT
  %c = complex(%x, %y)
  %re = real(%c)
  %pick = select(%less, %x, %y)
  %t = tuple(%sum, %less)
  ROOT %gte = get-tuple-element(%t), index=1
})");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(ShapeToText(FindInstruction(*module, "sum")->shape(), true), "f32[2,3]{0,1}");
  EXPECT_EQ(ShapeToText(FindInstruction(*module, "less")->shape(), true), "pred[2,3]{0,1}");
  EXPECT_EQ(ShapeToText(FindInstruction(*module, "c")->shape(), true), "c64[2,3]{0,1}");
  EXPECT_EQ(ShapeToText(FindInstruction(*module, "re")->shape(), true), "f32[2,3]{0,1}");
  EXPECT_EQ(ShapeToText(FindInstruction(*module, "pick")->shape(), true), "f32[2,3]{0,1}");
  EXPECT_EQ(ShapeToText(FindInstruction(*module, "t")->shape(), true),
            "(f32[2,3]{0,1}, pred[2,3]{0,1})");
  EXPECT_EQ(ShapeToText(FindInstruction(*module, "gte")->shape(), true), "pred[2,3]{0,1}");
}

}  // namespace
}  // namespace tessera
