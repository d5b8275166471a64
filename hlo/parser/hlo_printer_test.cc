// Tests of the HLO text printer: canonical texts print back unchanged,
// non-canonical texts reach a fixed point after one round, and the pieces
// of the public API print as XLA does.
#include "hlo/parser/hlo_printer.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/ir/hlo_module.h"
#include "hlo/ir/literal.h"
#include "hlo/parser/hlo_parser.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// print(parse(text)), or the parse error.
std::string Reprint(const std::string& text,
                    const HloPrintOptions& options = HloPrintOptions::Default()) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) return "parse error: " + std::string(module.status().message());
  return PrintHloModule(**module, options);
}

// "line N:\n  expected: ...\n  actual:   ..." for the first line that
// differs, to make failures readable.
std::string FirstDifference(const std::string& expected, const std::string& actual) {
  std::istringstream e(expected), a(actual);
  std::string el, al;
  for (int line = 1;; ++line) {
    const bool more_e = static_cast<bool>(std::getline(e, el));
    const bool more_a = static_cast<bool>(std::getline(a, al));
    if (!more_e && !more_a) return "texts are equal";
    if (!more_e || !more_a || el != al) {
      return "line " + std::to_string(line) + ":\n  expected: " + (more_e ? el : "<end>") +
             "\n  actual:   " + (more_a ? al : "<end>");
    }
  }
}

// Every `.hlo` file in the directory named by `env` must print back byte for
// byte with `options`.
void CheckCanonicalDirectory(const char* env, const HloPrintOptions& options) {
  const char* dir = std::getenv(env);
  if (dir == nullptr || !fs::is_directory(dir)) GTEST_SKIP() << env << " not set";
  int total = 0, same = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".hlo") continue;
    std::ifstream in(entry.path());
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    ++total;
    const std::string printed = Reprint(text, options);
    if (printed == text) {
      ++same;
    } else {
      ADD_FAILURE() << entry.path() << "\n--- expected ---\n"
                    << text << "--- printed ---\n"
                    << printed;
    }
  }
  std::cout << same << "/" << total << " canonical texts print unchanged\n";
}

// ---------------------------------------------------------------------------
// Canonical texts: XLA's HloModule::ToString() of each module, which must
// print back byte for byte.  Together they use every opcode and attribute
// the parser reads.

struct CanonicalCase {
  const char* name;
  const char* text;
};

constexpr CanonicalCase kCanonicalCases[] = {
    {"UnaryFloatChain", R"(HloModule unary_float, entry_computation_layout={(f32[4]{0})->pred[4]{0}}

ENTRY %main (x: f32[4]) -> pred[4] {
  %x = f32[4]{0} parameter(0)
  %abs = f32[4]{0} abs(f32[4]{0} %x)
  %acos = f32[4]{0} acos(f32[4]{0} %abs)
  %acosh = f32[4]{0} acosh(f32[4]{0} %acos)
  %asin = f32[4]{0} asin(f32[4]{0} %acosh)
  %asinh = f32[4]{0} asinh(f32[4]{0} %asin)
  %atan = f32[4]{0} atan(f32[4]{0} %asinh)
  %atanh = f32[4]{0} atanh(f32[4]{0} %atan)
  %cbrt = f32[4]{0} cbrt(f32[4]{0} %atanh)
  %ceil = f32[4]{0} ceil(f32[4]{0} %cbrt)
  %cosine = f32[4]{0} cosine(f32[4]{0} %ceil)
  %cosh = f32[4]{0} cosh(f32[4]{0} %cosine)
  %erf = f32[4]{0} erf(f32[4]{0} %cosh)
  %exponential = f32[4]{0} exponential(f32[4]{0} %erf)
  %exponential-minus-one = f32[4]{0} exponential-minus-one(f32[4]{0} %exponential)
  %floor = f32[4]{0} floor(f32[4]{0} %exponential-minus-one)
  %log = f32[4]{0} log(f32[4]{0} %floor)
  %log-plus-one = f32[4]{0} log-plus-one(f32[4]{0} %log)
  %logistic = f32[4]{0} logistic(f32[4]{0} %log-plus-one)
  %negate = f32[4]{0} negate(f32[4]{0} %logistic)
  %round-nearest-afz = f32[4]{0} round-nearest-afz(f32[4]{0} %negate)
  %round-nearest-even = f32[4]{0} round-nearest-even(f32[4]{0} %round-nearest-afz)
  %rsqrt = f32[4]{0} rsqrt(f32[4]{0} %round-nearest-even)
  %sign = f32[4]{0} sign(f32[4]{0} %rsqrt)
  %sine = f32[4]{0} sine(f32[4]{0} %sign)
  %sinh = f32[4]{0} sinh(f32[4]{0} %sine)
  %sqrt = f32[4]{0} sqrt(f32[4]{0} %sinh)
  %tan = f32[4]{0} tan(f32[4]{0} %sqrt)
  %tanh = f32[4]{0} tanh(f32[4]{0} %tan)
  %copy = f32[4]{0} copy(f32[4]{0} %tanh)
  %bitcast = f32[2,2]{1,0} bitcast(f32[4]{0} %copy)
  %reshape = f32[4]{0} reshape(f32[2,2]{1,0} %bitcast)
  %convert = f16[4]{0} convert(f32[4]{0} %reshape)
  %bitcast-convert = s16[4]{0} bitcast-convert(f16[4]{0} %convert)
  %convert.1 = f32[4]{0} convert(s16[4]{0} %bitcast-convert)
  %reduce-precision = f32[4]{0} reduce-precision(f32[4]{0} %convert.1), exponent_bits=5, mantissa_bits=10
  ROOT %is-finite = pred[4]{0} is-finite(f32[4]{0} %reduce-precision)
}

)"},
    {"IntegerAndBitwiseOps",
     R"(HloModule integer_ops, entry_computation_layout={(s32[8]{0}, s32[8]{0}, u32[8]{0})->u32[8]{0}}

ENTRY %main (a: s32[8], b: s32[8], u: u32[8]) -> u32[8] {
  %a = s32[8]{0} parameter(0)
  %b = s32[8]{0} parameter(1)
  %and = s32[8]{0} and(s32[8]{0} %a, s32[8]{0} %b)
  %or = s32[8]{0} or(s32[8]{0} %and, s32[8]{0} %b)
  %xor = s32[8]{0} xor(s32[8]{0} %or, s32[8]{0} %b)
  %not = s32[8]{0} not(s32[8]{0} %xor)
  %shift-left = s32[8]{0} shift-left(s32[8]{0} %not, s32[8]{0} %b)
  %shift-right-arithmetic = s32[8]{0} shift-right-arithmetic(s32[8]{0} %shift-left, s32[8]{0} %b)
  %shift-right-logical = s32[8]{0} shift-right-logical(s32[8]{0} %shift-right-arithmetic, s32[8]{0} %b)
  %count-leading-zeros = s32[8]{0} count-leading-zeros(s32[8]{0} %shift-right-logical)
  %popcnt = s32[8]{0} popcnt(s32[8]{0} %count-leading-zeros)
  %remainder = s32[8]{0} remainder(s32[8]{0} %popcnt, s32[8]{0} %b)
  %divide = s32[8]{0} divide(s32[8]{0} %remainder, s32[8]{0} %b)
  %mulhi = s32[8]{0} mulhi(s32[8]{0} %divide, s32[8]{0} %b)
  %compare = pred[8]{0} compare(s32[8]{0} %mulhi, s32[8]{0} %b), direction=GE
  %compare.1 = pred[8]{0} compare(s32[8]{0} %mulhi, s32[8]{0} %b), direction=LT, type=UNSIGNED
  %and.1 = pred[8]{0} and(pred[8]{0} %compare, pred[8]{0} %compare.1)
  %convert = u32[8]{0} convert(pred[8]{0} %and.1)
  %u = u32[8]{0} parameter(2)
  %compare.2 = pred[8]{0} compare(u32[8]{0} %convert, u32[8]{0} %u), direction=NE
  ROOT %select = u32[8]{0} select(pred[8]{0} %compare.2, u32[8]{0} %convert, u32[8]{0} %u)
}

)"},
    {"BinaryFloatAndComplexOps",
     R"(HloModule binary_float, entry_computation_layout={(f32[2,3]{1,0}, f32[2,3]{1,0}, u32[2,3]{1,0})->(f32[2,3]{1,0}, c64[2,3]{1,0}, bf16[2,3]{1,0})}

ENTRY %main (x: f32[2,3], y: f32[2,3], bits: u32[2,3]) -> (f32[2,3], c64[2,3], bf16[2,3]) {
  %x = f32[2,3]{1,0} parameter(0)
  %y = f32[2,3]{1,0} parameter(1)
  %add = f32[2,3]{1,0} add(f32[2,3]{1,0} %x, f32[2,3]{1,0} %y)
  %subtract = f32[2,3]{1,0} subtract(f32[2,3]{1,0} %add, f32[2,3]{1,0} %y)
  %multiply = f32[2,3]{1,0} multiply(f32[2,3]{1,0} %subtract, f32[2,3]{1,0} %y)
  %divide = f32[2,3]{1,0} divide(f32[2,3]{1,0} %multiply, f32[2,3]{1,0} %y)
  %maximum = f32[2,3]{1,0} maximum(f32[2,3]{1,0} %divide, f32[2,3]{1,0} %y)
  %minimum = f32[2,3]{1,0} minimum(f32[2,3]{1,0} %maximum, f32[2,3]{1,0} %y)
  %power = f32[2,3]{1,0} power(f32[2,3]{1,0} %minimum, f32[2,3]{1,0} %y)
  %remainder = f32[2,3]{1,0} remainder(f32[2,3]{1,0} %power, f32[2,3]{1,0} %y)
  %atan2 = f32[2,3]{1,0} atan2(f32[2,3]{1,0} %remainder, f32[2,3]{1,0} %y)
  %compare = pred[2,3]{1,0} compare(f32[2,3]{1,0} %atan2, f32[2,3]{1,0} %y), direction=LT, type=TOTALORDER
  %compare.1 = pred[2,3]{1,0} compare(f32[2,3]{1,0} %atan2, f32[2,3]{1,0} %x), direction=EQ
  %or = pred[2,3]{1,0} or(pred[2,3]{1,0} %compare, pred[2,3]{1,0} %compare.1)
  %select = f32[2,3]{1,0} select(pred[2,3]{1,0} %or, f32[2,3]{1,0} %atan2, f32[2,3]{1,0} %x)
  %clamp = f32[2,3]{1,0} clamp(f32[2,3]{1,0} %x, f32[2,3]{1,0} %select, f32[2,3]{1,0} %y)
  %complex = c64[2,3]{1,0} complex(f32[2,3]{1,0} %clamp, f32[2,3]{1,0} %y)
  %real = f32[2,3]{1,0} real(c64[2,3]{1,0} %complex)
  %imag = f32[2,3]{1,0} imag(c64[2,3]{1,0} %complex)
  %add.1 = f32[2,3]{1,0} add(f32[2,3]{1,0} %real, f32[2,3]{1,0} %imag)
  %bits = u32[2,3]{1,0} parameter(2)
  %stochastic-convert = bf16[2,3]{1,0} stochastic-convert(f32[2,3]{1,0} %add.1, u32[2,3]{1,0} %bits)
  ROOT %tuple = (f32[2,3]{1,0}, c64[2,3]{1,0}, bf16[2,3]{1,0}) tuple(f32[2,3]{1,0} %add.1, c64[2,3]{1,0} %complex, bf16[2,3]{1,0} %stochastic-convert)
}

)"},
    {"Constants",
     R"(HloModule constants, entry_computation_layout={()->(f32[], s32[], pred[], f16[], bf16[], /*index=5*/f64[], c64[], u8[3]{0}, f32[2,3]{1,0}, s32[2,2,2]{2,1,0}, /*index=10*/f32[1,1,1,2]{3,2,1,0}, f32[0]{0}, f32[2,0]{1,0}, pred[3]{0}, f32[12]{0}, /*index=15*/f32[5]{0}, (s32[], f32[2]{0}), f32[2,3]{1,0})}

ENTRY %main () -> (f32[], s32[], pred[], f16[], bf16[], /*index=5*/f64[], c64[], u8[3], f32[2,3], s32[2,2,2], /*index=10*/f32[1,1,1,2], f32[0], f32[2,0], pred[3], f32[12], /*index=15*/f32[5], (s32[], f32[2]), f32[2,3]) {
  %f32 = f32[] constant(1.5)
  %s32 = s32[] constant(-7)
  %pred = pred[] constant(true)
  %f16 = f16[] constant(0.5)
  %bf16 = bf16[] constant(-2)
  %f64 = f64[] constant(0.1)
  %c64 = c64[] constant((1, -2.5))
  %u8 = u8[3]{0} constant({0, 128, 255})
  %matrix = f32[2,3]{1,0} constant({ { 1, 2, 3 }, { 4, 5, 6 } })
  %cube = s32[2,2,2]{2,1,0} constant({ { { 1, 2 }, { 3, 4 } }, { { 5, 6 }, { 7, 8 } } })
  %rank4 = f32[1,1,1,2]{3,2,1,0} constant({ { /*i0=0*/ { /*i1=0*/ { 1, 2 } } } })
  %empty = f32[0]{0} constant({})
  %empty2 = f32[2,0]{1,0} constant({ {}, {} })
  %preds = pred[3]{0} constant({1, 0, 1})
  %large = f32[12]{0} constant({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
  %special = f32[5]{0} constant({inf, -inf, nan, -0, 1e-05})
  %tuple_constant = (s32[], f32[2]{0}) constant(( 3, {1.25, -1} ))
  %column_major = f32[2,3]{0,1} constant({ { 1, 2, 3 }, { 4, 5, 6 } })
  ROOT %tuple = (f32[], s32[], pred[], f16[], bf16[], /*index=5*/f64[], c64[], u8[3]{0}, f32[2,3]{1,0}, s32[2,2,2]{2,1,0}, /*index=10*/f32[1,1,1,2]{3,2,1,0}, f32[0]{0}, f32[2,0]{1,0}, pred[3]{0}, f32[12]{0}, /*index=15*/f32[5]{0}, (s32[], f32[2]{0}), f32[2,3]{0,1}) tuple(f32[] %f32, s32[] %s32, pred[] %pred, f16[] %f16, bf16[] %bf16, /*index=5*/f64[] %f64, c64[] %c64, u8[3]{0} %u8, f32[2,3]{1,0} %matrix, s32[2,2,2]{2,1,0} %cube, /*index=10*/f32[1,1,1,2]{3,2,1,0} %rank4, f32[0]{0} %empty, f32[2,0]{1,0} %empty2, pred[3]{0} %preds, f32[12]{0} %large, /*index=15*/f32[5]{0} %special, (s32[], f32[2]{0}) %tuple_constant, f32[2,3]{0,1} %column_major)
}

)"},
    {"ShapeOps",
     R"(HloModule shape_ops, entry_computation_layout={(f32[4,6]{1,0}, s32[], f32[2,2]{1,0})->(f32[6,4]{0,1}, f32[2,3]{1,0}, f32[4,12]{1,0}, f32[9,14]{1,0}, f32[2,2]{1,0}, /*index=5*/f32[4,6]{1,0}, s32[4,6]{1,0}, f32[24]{0}, s32[], f32[<=4,6]{1,0}, /*index=10*/f32[3,8]{1,0})}

ENTRY %main (x: f32[4,6], i: s32[], update: f32[2,2]) -> (f32[6,4], f32[2,3], f32[4,12], f32[9,14], f32[2,2], /*index=5*/f32[4,6], s32[4,6], f32[24], s32[], f32[<=4,6], /*index=10*/f32[3,8]) {
  %x = f32[4,6]{1,0} parameter(0)
  %transpose = f32[6,4]{0,1} transpose(f32[4,6]{1,0} %x), dimensions={1,0}
  %reverse = f32[6,4]{0,1} reverse(f32[6,4]{0,1} %transpose), dimensions={0}
  %slice = f32[2,3]{1,0} slice(f32[4,6]{1,0} %x), slice={[0:4:2], [0:6:2]}
  %slice.1 = f32[4,6]{1,0} slice(f32[4,6]{1,0} %x), slice={[0:4], [0:6]}
  %concatenate = f32[4,12]{1,0} concatenate(f32[4,6]{1,0} %x, f32[4,6]{1,0} %slice.1), dimensions={1}
  %constant = f32[] constant(0)
  %pad = f32[9,14]{1,0} pad(f32[4,6]{1,0} %x, f32[] %constant), padding=1_1_1x0_3_1
  %i = s32[] parameter(1)
  %dynamic-slice = f32[2,2]{1,0} dynamic-slice(f32[4,6]{1,0} %x, s32[] %i, s32[] %i), dynamic_slice_sizes={2,2}
  %update = f32[2,2]{1,0} parameter(2)
  %dynamic-update-slice = f32[4,6]{1,0} dynamic-update-slice(f32[4,6]{1,0} %x, f32[2,2]{1,0} %update, s32[] %i, s32[] %i)
  %iota = s32[4,6]{1,0} iota(), iota_dimension=1
  %reshape = f32[24]{0} reshape(f32[4,6]{1,0} %dynamic-update-slice), inferred_dimension=0
  %get-dimension-size = s32[] get-dimension-size(f32[4,6]{1,0} %x), dimensions={1}
  %set-dimension-size = f32[<=4,6]{1,0} set-dimension-size(f32[4,6]{1,0} %x, s32[] %get-dimension-size), dimensions={0}
  %pad.1 = f32[3,8]{1,0} pad(f32[4,6]{1,0} %x, f32[] %constant), padding=-1_0x1_1
  ROOT %tuple = (f32[6,4]{0,1}, f32[2,3]{1,0}, f32[4,12]{1,0}, f32[9,14]{1,0}, f32[2,2]{1,0}, /*index=5*/f32[4,6]{1,0}, s32[4,6]{1,0}, f32[24]{0}, s32[], f32[<=4,6]{1,0}, /*index=10*/f32[3,8]{1,0}) tuple(f32[6,4]{0,1} %reverse, f32[2,3]{1,0} %slice, f32[4,12]{1,0} %concatenate, f32[9,14]{1,0} %pad, f32[2,2]{1,0} %dynamic-slice, /*index=5*/f32[4,6]{1,0} %dynamic-update-slice, s32[4,6]{1,0} %iota, f32[24]{0} %reshape, s32[] %get-dimension-size, f32[<=4,6]{1,0} %set-dimension-size, /*index=10*/f32[3,8]{1,0} %pad.1)
}

)"},
    {"BroadcastDynamicReshapeAndTuples",
     R"(HloModule tuples, entry_computation_layout={(f32[], s32[], s32[])->(f32[2,3]{1,0}, f32[?,<=3]{1,0}, ())}

ENTRY %main (s: f32[], d0: s32[], d1: s32[]) -> (f32[2,3], f32[?,<=3], ()) {
  %s = f32[] parameter(0)
  %broadcast = f32[2,3]{1,0} broadcast(f32[] %s), dimensions={}
  %d0 = s32[] parameter(1)
  %d1 = s32[] parameter(2)
  %dynamic-reshape = f32[?,<=3]{1,0} dynamic-reshape(f32[2,3]{1,0} %broadcast, s32[] %d0, s32[] %d1)
  %tuple = () tuple()
  %tuple.1 = (f32[2,3]{1,0}, f32[?,<=3]{1,0}, ()) tuple(f32[2,3]{1,0} %broadcast, f32[?,<=3]{1,0} %dynamic-reshape, () %tuple)
  %get-tuple-element = f32[2,3]{1,0} get-tuple-element((f32[2,3]{1,0}, f32[?,<=3]{1,0}, ()) %tuple.1), index=0
  %get-tuple-element.1 = f32[?,<=3]{1,0} get-tuple-element((f32[2,3]{1,0}, f32[?,<=3]{1,0}, ()) %tuple.1), index=1
  %get-tuple-element.2 = () get-tuple-element((f32[2,3]{1,0}, f32[?,<=3]{1,0}, ()) %tuple.1), index=2
  ROOT %tuple.2 = (f32[2,3]{1,0}, f32[?,<=3]{1,0}, ()) tuple(f32[2,3]{1,0} %get-tuple-element, f32[?,<=3]{1,0} %get-tuple-element.1, () %get-tuple-element.2)
}

)"},
    {"GatherScatterSort",
     R"(HloModule gather_scatter, entry_computation_layout={(f32[10,3]{1,0}, s32[4,1]{1,0}, f32[4,3]{1,0}, f32[4,10,3]{2,1,0}, s32[4,2,1]{2,1,0})->(f32[4,3]{1,0}, f32[10,3]{1,0}, f32[10,3]{1,0}, s32[10,3]{1,0}, f32[4,2,3]{2,1,0})}

%add (lhs: f32[], rhs: f32[]) -> f32[] {
  %lhs = f32[] parameter(0)
  %rhs = f32[] parameter(1)
  ROOT %sum = f32[] add(f32[] %lhs, f32[] %rhs)
}

%less (a: f32[], b: f32[], c: s32[], d: s32[]) -> pred[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %lt = pred[] compare(f32[] %a, f32[] %b), direction=LT
  %c = s32[] parameter(2)
  %d = s32[] parameter(3)
}

ENTRY %main (operand: f32[10,3], indices: s32[4,1], updates: f32[4,3], batched: f32[4,10,3], batched_indices: s32[4,2,1]) -> (f32[4,3], f32[10,3], f32[10,3], s32[10,3], f32[4,2,3]) {
  %operand = f32[10,3]{1,0} parameter(0)
  %indices = s32[4,1]{1,0} parameter(1)
  %gather = f32[4,3]{1,0} gather(f32[10,3]{1,0} %operand, s32[4,1]{1,0} %indices), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}, indices_are_sorted=true
  %updates = f32[4,3]{1,0} parameter(2)
  %scatter = f32[10,3]{1,0} scatter(f32[10,3]{1,0} %operand, s32[4,1]{1,0} %indices, f32[4,3]{1,0} %updates), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, indices_are_sorted=true, unique_indices=true, to_apply=%add
  %iota = s32[10,3]{1,0} iota(), iota_dimension=0
  %sort = (f32[10,3]{1,0}, s32[10,3]{1,0}) sort(f32[10,3]{1,0} %scatter, s32[10,3]{1,0} %iota), dimensions={0}, is_stable=true, to_apply=%less
  %get-tuple-element = f32[10,3]{1,0} get-tuple-element((f32[10,3]{1,0}, s32[10,3]{1,0}) %sort), index=0
  %batched = f32[4,10,3]{2,1,0} parameter(3)
  %batched_indices = s32[4,2,1]{2,1,0} parameter(4)
  %gather.1 = f32[4,2,3]{2,1,0} gather(f32[4,10,3]{2,1,0} %batched, s32[4,2,1]{2,1,0} %batched_indices), offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1,3}
  %scatter.1 = f32[4,10,3]{2,1,0} scatter(f32[4,10,3]{2,1,0} %batched, s32[4,2,1]{2,1,0} %batched_indices, f32[4,2,3]{2,1,0} %gather.1), update_window_dims={2}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0}, index_vector_dim=2, to_apply=%add
  %slice = f32[1,10,3]{2,1,0} slice(f32[4,10,3]{2,1,0} %scatter.1), slice={[0:1], [0:10], [0:3]}
  %reshape = f32[10,3]{1,0} reshape(f32[1,10,3]{2,1,0} %slice)
  %get-tuple-element.1 = s32[10,3]{1,0} get-tuple-element((f32[10,3]{1,0}, s32[10,3]{1,0}) %sort), index=1
  ROOT %tuple = (f32[4,3]{1,0}, f32[10,3]{1,0}, f32[10,3]{1,0}, s32[10,3]{1,0}, f32[4,2,3]{2,1,0}) tuple(f32[4,3]{1,0} %gather, f32[10,3]{1,0} %get-tuple-element, f32[10,3]{1,0} %reshape, s32[10,3]{1,0} %get-tuple-element.1, f32[4,2,3]{2,1,0} %gather.1)
}

)"},
    {"ReductionsAndWindows",
     R"(HloModule reductions, entry_computation_layout={(f32[8,8]{1,0}, s32[8,8]{1,0}, f32[4,4]{1,0})->(f32[8]{0}, s32[8]{0}, f32[4,4]{1,0}, f32[8,8]{1,0}, f32[8,8]{1,0}, /*index=5*/f32[8,8]{1,0}, f32[8,8]{1,0})}

%argmax (v0: f32[], i0: s32[], v1: f32[], i1: s32[]) -> (f32[], s32[]) {
  %v0 = f32[] parameter(0)
  %v1 = f32[] parameter(2)
  %compare = pred[] compare(f32[] %v0, f32[] %v1), direction=GE
  %select = f32[] select(pred[] %compare, f32[] %v0, f32[] %v1)
  %i0 = s32[] parameter(1)
  %i1 = s32[] parameter(3)
  %select.1 = s32[] select(pred[] %compare, s32[] %i0, s32[] %i1)
  ROOT %tuple = (f32[], s32[]) tuple(f32[] %select, s32[] %select.1)
}

%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %add = f32[] add(f32[] %x, f32[] %y)
}

%ge (a: f32[], b: f32[]) -> pred[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %compare = pred[] compare(f32[] %a, f32[] %b), direction=GE
}

%negate (p: f32[]) -> f32[] {
  %p = f32[] parameter(0)
  ROOT %negate = f32[] negate(f32[] %p)
}

ENTRY %main (x: f32[8,8], i: s32[8,8], source: f32[4,4]) -> (f32[8], s32[8], f32[4,4], f32[8,8], f32[8,8], /*index=5*/f32[8,8], f32[8,8]) {
  %x = f32[8,8]{1,0} parameter(0)
  %i = s32[8,8]{1,0} parameter(1)
  %constant = f32[] constant(-inf)
  %constant.1 = s32[] constant(0)
  %reduce = (f32[8]{0}, s32[8]{0}) reduce(f32[8,8]{1,0} %x, s32[8,8]{1,0} %i, f32[] %constant, s32[] %constant.1), dimensions={1}, to_apply=%argmax
  %get-tuple-element = f32[8]{0} get-tuple-element((f32[8]{0}, s32[8]{0}) %reduce), index=0
  %get-tuple-element.1 = s32[8]{0} get-tuple-element((f32[8]{0}, s32[8]{0}) %reduce), index=1
  %constant.2 = f32[] constant(0)
  %reduce-window = f32[4,4]{1,0} reduce-window(f32[8,8]{1,0} %x, f32[] %constant.2), window={size=2x2 stride=2x2}, to_apply=%add
  %reduce-window.1 = f32[8,8]{1,0} reduce-window(f32[8,8]{1,0} %x, f32[] %constant.2), window={size=3x3 pad=1_1x1_1}, to_apply=%add
  %reduce-window.2 = f32[8,8]{1,0} reduce-window(f32[8,8]{1,0} %x, f32[] %constant.2), window={size=2x2 stride=2x1 pad=0_1x0_1 lhs_dilate=2x1 rhs_dilate=1x2}, to_apply=%add
  %source = f32[4,4]{1,0} parameter(2)
  %select-and-scatter = f32[8,8]{1,0} select-and-scatter(f32[8,8]{1,0} %x, f32[4,4]{1,0} %source, f32[] %constant.2), window={size=2x2 stride=2x2}, select=%ge, scatter=%add
  %map = f32[8,8]{1,0} map(f32[8,8]{1,0} %x), dimensions={0,1}, to_apply=%negate
  ROOT %tuple = (f32[8]{0}, s32[8]{0}, f32[4,4]{1,0}, f32[8,8]{1,0}, f32[8,8]{1,0}, /*index=5*/f32[8,8]{1,0}, f32[8,8]{1,0}) tuple(f32[8]{0} %get-tuple-element, s32[8]{0} %get-tuple-element.1, f32[4,4]{1,0} %reduce-window, f32[8,8]{1,0} %reduce-window.1, f32[8,8]{1,0} %reduce-window.2, /*index=5*/f32[8,8]{1,0} %select-and-scatter, f32[8,8]{1,0} %map)
}

)"},
    {"DotAndConvolution",
     R"(HloModule dot_conv, entry_computation_layout={(f32[2,3,4]{2,1,0}, f32[2,4,5]{2,1,0}, f32[1,8,8,4]{3,2,1,0}, f32[3,3,2,8]{3,2,1,0}, s32[3]{0})->(f32[2,3,5]{2,1,0}, f32[3,5]{1,0}, f32[1,8,8,8]{3,2,1,0}, f32[1,4,4,8]{3,2,1,0}, f32[1,17,17,8]{3,2,1,0}, /*index=5*/f32[3,5]{1,0}, f32[3,5]{1,0})}

ENTRY %main (a: f32[2,3,4], b: f32[2,4,5], input: f32[1,8,8,4], kernel: f32[3,3,2,8], groups: s32[3]) -> (f32[2,3,5], f32[3,5], f32[1,8,8,8], f32[1,4,4,8], f32[1,17,17,8], /*index=5*/f32[3,5], f32[3,5]) {
  %a = f32[2,3,4]{2,1,0} parameter(0)
  %b = f32[2,4,5]{2,1,0} parameter(1)
  %dot = f32[2,3,5]{2,1,0} dot(f32[2,3,4]{2,1,0} %a, f32[2,4,5]{2,1,0} %b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}, operand_precision={high,highest}
  %slice = f32[1,3,4]{2,1,0} slice(f32[2,3,4]{2,1,0} %a), slice={[0:1], [0:3], [0:4]}
  %reshape = f32[3,4]{1,0} reshape(f32[1,3,4]{2,1,0} %slice)
  %slice.1 = f32[1,4,5]{2,1,0} slice(f32[2,4,5]{2,1,0} %b), slice={[0:1], [0:4], [0:5]}
  %reshape.1 = f32[4,5]{1,0} reshape(f32[1,4,5]{2,1,0} %slice.1)
  %dot.1 = f32[3,5]{1,0} dot(f32[3,4]{1,0} %reshape, f32[4,5]{1,0} %reshape.1), lhs_contracting_dims={1}, rhs_contracting_dims={0}, algorithm=dot_bf16_bf16_f32_x3
  %input = f32[1,8,8,4]{3,2,1,0} parameter(2)
  %kernel = f32[3,3,2,8]{3,2,1,0} parameter(3)
  %convolution = f32[1,8,8,8]{3,2,1,0} convolution(f32[1,8,8,4]{3,2,1,0} %input, f32[3,3,2,8]{3,2,1,0} %kernel), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=2
  %convolution.1 = f32[1,4,4,8]{3,2,1,0} convolution(f32[1,8,8,4]{3,2,1,0} %input, f32[3,3,2,8]{3,2,1,0} %kernel), window={size=3x3 stride=2x2 pad=1_1x1_1 rhs_reversal=1x0}, dim_labels=b01f_01io->b01f, feature_group_count=2, operand_precision={default,high}
  %convolution.2 = f32[1,17,17,8]{3,2,1,0} convolution(f32[1,8,8,4]{3,2,1,0} %input, f32[3,3,2,8]{3,2,1,0} %kernel), window={size=3x3 pad=2_2x2_2 lhs_dilate=2x2 rhs_dilate=2x2}, dim_labels=b01f_01io->b01f, feature_group_count=2
  %groups = s32[3]{0} parameter(4)
  %ragged-dot = f32[3,5]{1,0} ragged-dot(f32[3,4]{1,0} %reshape, f32[2,4,5]{2,1,0} %b, s32[3]{0} %groups), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
  %constant = f32[] constant(1)
  %broadcast = f32[3,4]{1,0} broadcast(f32[] %constant), dimensions={}
  %broadcast.1 = f32[4,5]{1,0} broadcast(f32[] %constant), dimensions={}
  %scaled-dot = f32[3,5]{1,0} scaled-dot(f32[3,4]{1,0} %reshape, f32[4,5]{1,0} %reshape.1, f32[3,4]{1,0} %broadcast, f32[4,5]{1,0} %broadcast.1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT %tuple = (f32[2,3,5]{2,1,0}, f32[3,5]{1,0}, f32[1,8,8,8]{3,2,1,0}, f32[1,4,4,8]{3,2,1,0}, f32[1,17,17,8]{3,2,1,0}, /*index=5*/f32[3,5]{1,0}, f32[3,5]{1,0}) tuple(f32[2,3,5]{2,1,0} %dot, f32[3,5]{1,0} %dot.1, f32[1,8,8,8]{3,2,1,0} %convolution, f32[1,4,4,8]{3,2,1,0} %convolution.1, f32[1,17,17,8]{3,2,1,0} %convolution.2, /*index=5*/f32[3,5]{1,0} %ragged-dot, f32[3,5]{1,0} %scaled-dot)
}

)"},
    {"ControlFlow",
     R"(HloModule control_flow, entry_computation_layout={(s32[], f32[4]{0}, pred[])->(s32[], f32[4]{0})}

%on_true (t: f32[4]) -> f32[4] {
  %t = f32[4]{0} parameter(0)
  ROOT %negate = f32[4]{0} negate(f32[4]{0} %t)
}

%on_false (f: f32[4]) -> f32[4] {
  %f = f32[4]{0} parameter(0)
  ROOT %copy = f32[4]{0} copy(f32[4]{0} %f)
}

%branch_2 (b: f32[4]) -> f32[4] {
  %b = f32[4]{0} parameter(0)
  ROOT %sqrt = f32[4]{0} sqrt(f32[4]{0} %b)
}

%callee (c: f32[4]) -> f32[4] {
  %c = f32[4]{0} parameter(0)
  ROOT %abs = f32[4]{0} abs(f32[4]{0} %c)
}

%body (state: (s32[], f32[4])) -> (s32[], f32[4]) {
  %state = (s32[], f32[4]{0}) parameter(0)
  %get-tuple-element = s32[] get-tuple-element((s32[], f32[4]{0}) %state), index=0
  %constant = s32[] constant(1)
  %add = s32[] add(s32[] %get-tuple-element, s32[] %constant)
  %get-tuple-element.1 = f32[4]{0} get-tuple-element((s32[], f32[4]{0}) %state), index=1
  %exponential = f32[4]{0} exponential(f32[4]{0} %get-tuple-element.1)
  ROOT %tuple = (s32[], f32[4]{0}) tuple(s32[] %add, f32[4]{0} %exponential)
}

%condition (state.1: (s32[], f32[4])) -> pred[] {
  %state.1 = (s32[], f32[4]{0}) parameter(0)
  %get-tuple-element.2 = s32[] get-tuple-element((s32[], f32[4]{0}) %state.1), index=0
  %constant.1 = s32[] constant(10)
  ROOT %compare = pred[] compare(s32[] %get-tuple-element.2, s32[] %constant.1), direction=LT
}

ENTRY %main (n: s32[], x: f32[4], p: pred[]) -> (s32[], f32[4]) {
  %n = s32[] parameter(0)
  %p = pred[] parameter(2)
  %x = f32[4]{0} parameter(1)
  %conditional = f32[4]{0} conditional(pred[] %p, f32[4]{0} %x, f32[4]{0} %x), true_computation=%on_true, false_computation=%on_false
  %conditional.1 = f32[4]{0} conditional(s32[] %n, f32[4]{0} %conditional, f32[4]{0} %conditional, f32[4]{0} %conditional), branch_computations={%on_true, %on_false, %branch_2}
  %call = f32[4]{0} call(f32[4]{0} %conditional.1), to_apply=%callee
  %call.1 = f32[4]{0} call(f32[4]{0} %call), to_apply=%callee, is_composite=true, frontend_attributes={composite.attributes={n = 1 : i32},composite.name="my.abs",composite.version="1"}
  %tuple = (s32[], f32[4]{0}) tuple(s32[] %n, f32[4]{0} %call.1)
  ROOT %while = (s32[], f32[4]{0}) while((s32[], f32[4]{0}) %tuple), condition=%condition, body=%body, backend_config={"known_trip_count":{"n":"10"}}
}

)"},
    {"FusionAndCustomCall",
     R"(HloModule fusion_custom_call, entry_computation_layout={(f32[8]{0}, f32[8]{0}, f32[1,8,8,2]{3,2,1,0})->(f32[8]{0}, f32[8]{0}, f32[8]{0}, (f32[8]{0}, f32[8]{0}), f32[8]{0}, /*index=5*/f32[8]{0}, f32[1,8,8,2]{3,2,1,0}, f32[8]{0})}

%fused_computation (param_0: f32[8], param_1: f32[8]) -> f32[8] {
  %param_0 = f32[8]{0} parameter(0)
  %param_1 = f32[8]{0} parameter(1)
  %multiply = f32[8]{0} multiply(f32[8]{0} %param_0, f32[8]{0} %param_1)
  ROOT %add = f32[8]{0} add(f32[8]{0} %multiply, f32[8]{0} %param_1)
}

%fused_computation.1 (param_0.1: f32[8], param_1.1: f32[8]) -> (f32[8], f32[8]) {
  %param_0.1 = f32[8]{0} parameter(0)
  %param_1.1 = f32[8]{0} parameter(1)
  %subtract = f32[8]{0} subtract(f32[8]{0} %param_0.1, f32[8]{0} %param_1.1)
  %negate = f32[8]{0} negate(f32[8]{0} %subtract)
  ROOT %tuple = (f32[8]{0}, f32[8]{0}) tuple(f32[8]{0} %subtract, f32[8]{0} %negate)
}

%max (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %maximum = f32[] maximum(f32[] %a, f32[] %b)
}

ENTRY %main (x: f32[8], y: f32[8], image: f32[1,8,8,2]) -> (f32[8], f32[8], f32[8], (f32[8], f32[8]), f32[8], /*index=5*/f32[8], f32[1,8,8,2], f32[8]) {
  %x = f32[8]{0} parameter(0)
  %y = f32[8]{0} parameter(1)
  %fusion = f32[8]{0} fusion(f32[8]{0} %x, f32[8]{0} %y), kind=kLoop, calls=%fused_computation
  %fusion.1 = f32[8]{0} fusion(f32[8]{0} %x, f32[8]{0} %y), kind=kOutput, output_to_operand_aliasing={{}: (1, {})}, calls=%fused_computation
  %fusion.2 = f32[8]{0} fusion(f32[8]{0} %x, f32[8]{0} %fusion.1), kind=kCustom, calls=%fused_computation, backend_config={"fusion_backend_config":{"kind":"__custom_fusion"}}
  %fusion.3 = (f32[8]{0}, f32[8]{0}) fusion(f32[8]{0} %x, f32[8]{0} %y), kind=kInput, output_to_operand_aliasing={{0}: (0, {}), {1}: (1, {})}, calls=%fused_computation.1
  %custom-call = f32[8]{0} custom-call(f32[8]{0} %x, f32[8]{0} %y), custom_call_target="my_op", backend_config="opaque \"data\"\n"
  %custom-call.1 = f32[8]{0} custom-call(f32[8]{0} %x), custom_call_target="ordered", operand_layout_constraints={f32[8]{0}}, custom_call_has_side_effect=true, output_to_operand_aliasing={{}: (0, {})}, schedule=SCHEDULE_LATEST, api_version=API_VERSION_STATUS_RETURNING
  %image = f32[1,8,8,2]{3,2,1,0} parameter(2)
  %custom-call.2 = f32[1,8,8,2]{3,2,1,0} custom-call(f32[1,8,8,2]{3,2,1,0} %image, f32[1,8,8,2]{3,2,1,0} %image), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=2, operand_precision={highest,default}, padding_type=PADDING_SAME, custom_call_target="conv", literal=s32[2]{0} {1, 2}, api_version=API_VERSION_TYPED_FFI
  %custom-call.3 = f32[8]{0} custom-call(f32[8]{0} %x), custom_call_target="reduce_like", schedule=SCHEDULE_EARLIEST, called_computations={%max}
  ROOT %tuple = (f32[8]{0}, f32[8]{0}, f32[8]{0}, (f32[8]{0}, f32[8]{0}), f32[8]{0}, /*index=5*/f32[8]{0}, f32[1,8,8,2]{3,2,1,0}, f32[8]{0}) tuple(f32[8]{0} %fusion, f32[8]{0} %fusion.1, f32[8]{0} %fusion.2, (f32[8]{0}, f32[8]{0}) %fusion.3, f32[8]{0} %custom-call, /*index=5*/f32[8]{0} %custom-call.1, f32[1,8,8,2]{3,2,1,0} %custom-call.2, f32[8]{0} %custom-call.3)
}

)"},
    {"AsyncOps",
     R"(HloModule async_ops, entry_computation_layout={(f32[16]{0})->(f32[32]{0}, f32[16]{0}, f32[16]{0})}

%async_computation (p0: f32[16]) -> f32[16] {
  %p0 = f32[16]{0} parameter(0)
  %negate = f32[16]{0} negate(f32[16]{0} %p0)
  ROOT %exponential = f32[16]{0} exponential(f32[16]{0} %negate)
}, execution_thread="side"

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %add.1 = f32[] add(f32[] %a, f32[] %b)
}

ENTRY %main (x: f32[16]) -> (f32[32], f32[16], f32[16]) {
  %x = f32[16]{0} parameter(0)
  %custom-call-start = ((f32[16]{0}), f32[32]{0}, s32[]) custom-call-start(f32[16]{0} %x), async_execution_thread="side", custom_call_target="foo", backend_config={"stream":1}
  %custom-call-update = ((f32[16]{0}), f32[32]{0}, s32[]) custom-call-update(((f32[16]{0}), f32[32]{0}, s32[]) %custom-call-start)
  %custom-call-done = f32[32]{0} custom-call-done(((f32[16]{0}), f32[32]{0}, s32[]) %custom-call-update)
  %async-start = ((f32[16]{0}), f32[16]{0}, u32[]) async-start(f32[16]{0} %x), async_execution_thread="side", calls=%async_computation
  %async-done = f32[16]{0} async-done(((f32[16]{0}), f32[16]{0}, u32[]) %async-start)
  %all-reduce-start = ((f32[16]{0}), f32[16]{0}) all-reduce-start(f32[16]{0} %x), replica_groups={}, to_apply=%add
  %all-reduce-done = f32[16]{0} all-reduce-done(((f32[16]{0}), f32[16]{0}) %all-reduce-start)
  ROOT %tuple = (f32[32]{0}, f32[16]{0}, f32[16]{0}) tuple(f32[32]{0} %custom-call-done, f32[16]{0} %async-done, f32[16]{0} %all-reduce-done)
}

)"},
    {"Collectives",
     R"(HloModule collectives, entry_computation_layout={(f32[8]{0}, token[], s32[4]{0})->(f32[8]{0}, f32[32]{0}, f32[2]{0}, f32[8]{0}, f32[8]{0}, /*index=5*/f32[8]{0}, f32[8]{0}, f32[8]{0}, f32[8]{0}, f32[32]{0}, /*index=10*/u32[], u32[])}, replica_count=4, num_partitions=2

%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %add = f32[] add(f32[] %a, f32[] %b)
}

ENTRY %main (x: f32[8], token: token[], sizes: s32[4]) -> (f32[8], f32[32], f32[2], f32[8], f32[8], /*index=5*/f32[8], f32[8], f32[8], f32[8], f32[32], /*index=10*/u32[], u32[]) {
  %x = f32[8]{0} parameter(0)
  %all-reduce = f32[8]{0} all-reduce(f32[8]{0} %x), channel_id=1, replica_groups={{0,1},{2,3}}, use_global_device_ids=true, to_apply=%sum
  %all-gather = f32[32]{0} all-gather(f32[8]{0} %x), channel_id=2, replica_groups=[2,4]<=[8], constrain_layout=true, dimensions={0}, use_global_device_ids=true
  %reduce-scatter = f32[2]{0} reduce-scatter(f32[8]{0} %x), channel_id=3, replica_groups=[2,4]<=[4,2]T(1,0), dimensions={0}, to_apply=%sum
  %all-to-all = f32[8]{0} all-to-all(f32[8]{0} %x), replica_groups={{0,1,2,3}}, dimensions={0}
  %collective-broadcast = f32[8]{0} collective-broadcast(f32[8]{0} %x), replica_groups={{0,1}}
  %collective-permute = f32[8]{0} collective-permute(f32[8]{0} %x), channel_id=4, source_target_pairs={{0,1},{1,2},{2,3},{3,0}}
  %collective-permute-start = (f32[8]{0}, f32[8]{0}) collective-permute-start(f32[8]{0} %x), source_target_pairs={{0,1},{1,0}}
  %collective-permute-done = f32[8]{0} collective-permute-done((f32[8]{0}, f32[8]{0}) %collective-permute-start)
  %sizes = s32[4]{0} parameter(2)
  %ragged-all-to-all = f32[8]{0} ragged-all-to-all(f32[8]{0} %x, f32[8]{0} %x, s32[4]{0} %sizes, s32[4]{0} %sizes, s32[4]{0} %sizes, /*index=5*/s32[4]{0} %sizes), replica_groups={{0,1,2,3}}
  %all-gather-start = (f32[8]{0}, f32[32]{0}) all-gather-start(f32[8]{0} %x), replica_groups={{0,1,2,3}}, dimensions={0}
  %all-gather-done = f32[32]{0} all-gather-done((f32[8]{0}, f32[32]{0}) %all-gather-start)
  %replica-id = u32[] replica-id()
  %partition-id = u32[] partition-id()
  ROOT %tuple = (f32[8]{0}, f32[32]{0}, f32[2]{0}, f32[8]{0}, f32[8]{0}, /*index=5*/f32[8]{0}, f32[8]{0}, f32[8]{0}, f32[8]{0}, f32[32]{0}, /*index=10*/u32[], u32[]) tuple(f32[8]{0} %all-reduce, f32[32]{0} %all-gather, f32[2]{0} %reduce-scatter, f32[8]{0} %all-to-all, f32[8]{0} %collective-broadcast, /*index=5*/f32[8]{0} %collective-permute, f32[8]{0} %collective-permute-done, f32[8]{0} %ragged-all-to-all, f32[8]{0} %collective-permute, f32[32]{0} %all-gather-done, /*index=10*/u32[] %replica-id, u32[] %partition-id)
  %token = token[] parameter(1)
}

)"},
    {"SideEffectsAndMiscOps",
     R"(HloModule misc_ops, entry_computation_layout={(f32[4]{0}, f32[4,4]{1,0}, f32[2,3,4]{2,1,0}, f32[3]{0}, u64[2]{0})->(f32[4]{0}, f32[4,4]{1,0}, f32[4,4]{1,0}, c64[4]{0}, f32[4]{0}, /*index=5*/(u64[2]{0}, u32[4]{0}), u64[2]{0}, f32[4]{0}, (f32[2,3,4]{2,1,0}, f32[3]{0}, f32[3]{0}), f32[2]{0}, /*index=10*/s32[2]{0})}

ENTRY %main (x: f32[4], m: f32[4,4], data: f32[2,3,4], scale: f32[3], seed: u64[2]) -> (f32[4], f32[4,4], f32[4,4], c64[4], f32[4], /*index=5*/(u64[2], u32[4]), u64[2], f32[4], (f32[2,3,4], f32[3], f32[3]), f32[2], /*index=10*/s32[2]) {
  %data = f32[2,3,4]{2,1,0} parameter(2)
  %scale = f32[3]{0} parameter(3)
  %batch-norm-training = (f32[2,3,4]{2,1,0}, f32[3]{0}, f32[3]{0}) batch-norm-training(f32[2,3,4]{2,1,0} %data, f32[3]{0} %scale, f32[3]{0} %scale), epsilon=0.001, feature_index=1
  %after-all = token[] after-all()
  %infeed = ((f32[4]{0}), token[]) infeed(token[] %after-all), infeed_config="feed"
  %get-tuple-element = (f32[4]{0}) get-tuple-element(((f32[4]{0}), token[]) %infeed), index=0
  %get-tuple-element.1 = f32[4]{0} get-tuple-element((f32[4]{0}) %get-tuple-element), index=0
  %get-tuple-element.2 = token[] get-tuple-element(((f32[4]{0}), token[]) %infeed), index=1
  %outfeed = token[] outfeed(f32[4]{0} %get-tuple-element.1, token[] %get-tuple-element.2), outfeed_shape=f32[4]{0}, outfeed_config="out"
  %send = (f32[4]{0}, u32[], token[]) send(f32[4]{0} %get-tuple-element.1, token[] %outfeed), channel_id=5
  %send-done = token[] send-done((f32[4]{0}, u32[], token[]) %send), channel_id=5
  %recv = (f32[4]{0}, u32[], token[]) recv(token[] %send-done), channel_id=6, is_host_transfer=true
  %recv-done = (f32[4]{0}, token[]) recv-done((f32[4]{0}, u32[], token[]) %recv), channel_id=6, is_host_transfer=true
  %get-tuple-element.3 = f32[4]{0} get-tuple-element((f32[4]{0}, token[]) %recv-done), index=0
  %m = f32[4,4]{1,0} parameter(1)
  %cholesky = f32[4,4]{1,0} cholesky(f32[4,4]{1,0} %m), lower=true
  %triangular-solve = f32[4,4]{1,0} triangular-solve(f32[4,4]{1,0} %cholesky, f32[4,4]{1,0} %m), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
  %x = f32[4]{0} parameter(0)
  %constant = f32[] constant(0)
  %constant.1 = f32[] constant(1)
  %rng = f32[4]{0} rng(f32[] %constant, f32[] %constant.1), distribution=rng_uniform
  %complex = c64[4]{0} complex(f32[4]{0} %x, f32[4]{0} %rng)
  %fft = c64[4]{0} fft(c64[4]{0} %complex), fft_type=FFT, fft_length={4}
  %fft.1 = f32[4]{0} fft(c64[4]{0} %fft), fft_type=IRFFT, fft_length={4}
  %seed = u64[2]{0} parameter(4)
  %rng-bit-generator = (u64[2]{0}, u32[4]{0}) rng-bit-generator(u64[2]{0} %seed), algorithm=rng_philox
  %rng-get-and-update-state = u64[2]{0} rng-get-and-update-state(), delta=16
  %copy-start = (f32[4]{0}, f32[4]{0}, u32[]) copy-start(f32[4]{0} %x), cross_program_prefetch_index=0
  %copy-done = f32[4]{0} copy-done((f32[4]{0}, f32[4]{0}, u32[]) %copy-start)
  %add-dependency = f32[4]{0} add-dependency(f32[4]{0} %copy-done, token[] %after-all)
  %opt-barrier = f32[4]{0} opt-barrier(f32[4]{0} %add-dependency)
  %domain = f32[4]{0} domain(f32[4]{0} %opt-barrier), domain={kind="sharding", entry={maximal device=0}, exit={replicated}}
  %batch-norm-inference = f32[2,3,4]{2,1,0} batch-norm-inference(f32[2,3,4]{2,1,0} %data, f32[3]{0} %scale, f32[3]{0} %scale, f32[3]{0} %scale, f32[3]{0} %scale), epsilon=1e-05, feature_index=1
  %batch-norm-grad = (f32[2,3,4]{2,1,0}, f32[3]{0}, f32[3]{0}) batch-norm-grad(f32[2,3,4]{2,1,0} %batch-norm-inference, f32[3]{0} %scale, f32[3]{0} %scale, f32[3]{0} %scale, f32[2,3,4]{2,1,0} %data), epsilon=0.1, feature_index=1
  %topk = (f32[2]{0}, s32[2]{0}) topk(f32[4]{0} %x), k=2, largest=true, is_stable=false
  %get-tuple-element.4 = f32[2]{0} get-tuple-element((f32[2]{0}, s32[2]{0}) %topk), index=0
  %get-tuple-element.5 = s32[2]{0} get-tuple-element((f32[2]{0}, s32[2]{0}) %topk), index=1
  ROOT %tuple = (f32[4]{0}, f32[4,4]{1,0}, f32[4,4]{1,0}, c64[4]{0}, f32[4]{0}, /*index=5*/(u64[2]{0}, u32[4]{0}), u64[2]{0}, f32[4]{0}, (f32[2,3,4]{2,1,0}, f32[3]{0}, f32[3]{0}), f32[2]{0}, /*index=10*/s32[2]{0}) tuple(f32[4]{0} %get-tuple-element.3, f32[4,4]{1,0} %cholesky, f32[4,4]{1,0} %triangular-solve, c64[4]{0} %fft, f32[4]{0} %fft.1, /*index=5*/(u64[2]{0}, u32[4]{0}) %rng-bit-generator, u64[2]{0} %rng-get-and-update-state, f32[4]{0} %domain, (f32[2,3,4]{2,1,0}, f32[3]{0}, f32[3]{0}) %batch-norm-grad, f32[2]{0} %get-tuple-element.4, /*index=10*/s32[2]{0} %get-tuple-element.5)
}

)"},
    {"ModuleHeaderAndCommonAttributes",
     R"(HloModule header, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {0}, must-alias) }, buffer_donor={ (1, {1}), (2, {}) }, entry_computation_layout={(f32[4]{0}, (f32[4]{0}, f32[4]{0}), f32[4]{0})->(f32[4]{0}, f32[4]{0})}, allow_spmd_sharding_propagation_to_parameters={true,false,true}, allow_spmd_sharding_propagation_to_output={true}, replica_count=2, num_partitions=4, frontend_attributes={attr_a="a \"quoted\" value",attr_b={"json":[1,2]}}, spmd_output_sharding={{replicated}, {maximal device=1}}, spmd_parameters_shardings={{replicated}, {replicated}, {manual}}

%helper (h: f32[4]) -> f32[4] {
  %h = f32[4]{0} parameter(0), sharding={replicated}
  ROOT %negate = f32[4]{0} negate(f32[4]{0} %h), metadata={op_type="Neg" op_name="helper/neg" source_file="model.py" source_line=12 source_end_line=13 source_column=4 source_end_column=20 profile_type={1,2} deduplicated_name="neg" scheduling_name="sched"}
}, execution_thread="host"

ENTRY %main (a: f32[4], b: (f32[4], f32[4]), c: f32[4]) -> (f32[4], f32[4]) {
  %a = f32[4]{0} parameter(0), parameter_replication={true}, sharding={devices=[4]0,1,2,3}
  %b = (f32[4]{0}, f32[4]{0}) parameter(1), parameter_replication={false,true}, sharding={{replicated}, {devices=[2,2]<=[4] last_tile_dim_replicate}}
  %c = f32[4]{0} parameter(2), sharding={devices=[2,2]<=[2,2]T(1,0) last_tile_dims={manual}}
  %get-tuple-element = f32[4]{0} get-tuple-element((f32[4]{0}, f32[4]{0}) %b), index=0, sharding={devices=[1,2,2]0,2,1,3 last_tile_dims={replicated, manual}}
  %add = f32[4]{0} add(f32[4]{0} %a, f32[4]{0} %get-tuple-element), sharding={devices=[4]<=[4] metadata={op_name="add_sharding"}}, frontend_attributes={_xla_stream="1",key={"a":{"b":"}"}}}, statistics={visualizing_index=1,stat-1=33,stat-2=0.5}, metadata={op_name="add" stack_frame_id=3}
  %call = f32[4]{0} call(f32[4]{0} %add), to_apply=%helper, sharding={unknown shard_as 1}
  %multiply = f32[4]{0} multiply(f32[4]{0} %c, f32[4]{0} %c), sharding={manual metadata={{op_name="m1"}, {op_type="m2"}}}, control-predecessors={%call, %add}
  %subtract = f32[4]{0} subtract(f32[4]{0} %call, f32[4]{0} %multiply), sharding={replicated shard_like 2}
  ROOT %tuple = (f32[4]{0}, f32[4]{0}) tuple(f32[4]{0} %subtract, f32[4]{0} %multiply), sharding={{maximal device=0 metadata={op_name="t"}}, {unreduced}}
}

)"},
};

class CanonicalTextTest : public ::testing::TestWithParam<CanonicalCase> {};

TEST_P(CanonicalTextTest, PrintsBackUnchanged) {
  const std::string text = GetParam().text;
  const std::string printed = Reprint(text);
  EXPECT_TRUE(printed == text) << FirstDifference(text, printed) << "\n--- printed ---\n"
                               << printed << "--- end ---";
}

INSTANTIATE_TEST_SUITE_P(AllCases, CanonicalTextTest, ::testing::ValuesIn(kCanonicalCases),
                         [](const ::testing::TestParamInfo<CanonicalCase>& info) {
                           return std::string(info.param.name);
                         });

// ---------------------------------------------------------------------------
// Non-canonical inputs: the first print is canonical, so printing what it
// parses to gives the same text again.

constexpr CanonicalCase kNonCanonicalCases[] = {
    {"NoPercentNoShapesNoLayouts", R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[2,3] parameter(0)
  z = f32[] constant(0)
  r = f32[2] reduce(x, z), to_apply=add, dimensions={1}
  ROOT out = f32[2] negate(r)
}
)"},
    {"NoHeaderNoRootOutOfOrder", R"(
ENTRY e {
  p = f32[4] parameter(0)
  c = f32[] constant(2)
  unused = f32[4] exponential(p)
  b = f32[4] broadcast(c), dimensions={}
  m = f32[4] multiply(p, b)
}
)"},
    {"NestedInstructionsAndInlineComputations", R"(
HloModule nested
ENTRY main {
  p = f32[4] parameter(0)
  ROOT r = f32[] reduce(f32[4] negate(p), f32[] constant(0)), dimensions={0}, to_apply={
    a = f32[] parameter(0)
    b = f32[] parameter(1)
    ROOT m = f32[] maximum(a, b)
  }
}
)"},
    {"AttributesInAnyOrderAndRedundantDefaults", R"(
HloModule attrs
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), type=FLOAT, direction=LT
}
ENTRY main {
  x = f32[8,8] parameter(0)
  s = f32[4,8] slice(x), slice={[0:8:2], [0:8:1]}
  c = pred[4,8] compare(s, s), type=FLOAT, direction=EQ
  t = f32[8,8] sort(x), to_apply=less, is_stable=false, dimensions={1}
  conv = f32[1,8,8,1] convolution(f32[1,8,8,1] reshape(x), f32[1,1,1,1] constant({{{{1}}}})), dim_labels=b01f_01io->b01f, window={size=1x1 stride=1x1 pad=0_0x0_0}, feature_group_count=1, operand_precision={default,default}
  d = f32[8,8] dot(x, x), rhs_contracting_dims={0}, lhs_contracting_dims={1}, operand_precision={DEFAULT,DEFAULT}
  cc = f32[8,8] custom-call(x), custom_call_target="f", api_version=API_VERSION_ORIGINAL, schedule=SCHEDULE_NONE, to_apply=less
  ROOT r = (f32[4,8], pred[4,8], f32[8,8], f32[1,8,8,1], f32[8,8], f32[8,8]) tuple(s, c, t, conv, d, cc)
}
)"},
    {"ExplicitAsyncComputationBecomesSugar", R"(
HloModule async
wrapped {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  ROOT cc = f32[4] custom-call(p0, p1), custom_call_target="op"
}
ENTRY main {
  x = f32[4] parameter(0)
  start = ((f32[4], f32[4]), f32[4], s32[]) async-start(x, x), calls=wrapped
  ROOT done = f32[4] async-done(start), calls=wrapped
}
)"},
    {"AsyncComputationThatCannotBeSugar", R"(
HloModule async_explicit
wrapped {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  ROOT sub = f32[4] subtract(p1, p0)
}
ENTRY main {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  start = ((f32[4], f32[4]), f32[4], s32[]) async-start(x, y), calls=wrapped
  ROOT done = f32[4] async-done(start)
}
)"},
    {"ShardingNormalFormsAndIota", R"(
HloModule shardings, replica_count=4
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY main {
  x = f32[8] parameter(0), sharding={devices=[2,2]0,1,2,3 last_tile_dims={replicated}}
  y = f32[8] copy(x), sharding={devices=[1,4]<=[4] last_tile_dims={manual}}
  z = f32[8] copy(y), sharding={devices=[2,1,2]<=[2,2]T(0,1) last_tile_dims={replicated}}
  ROOT r = f32[8] all-reduce(z), replica_groups=[1,4]<=[1,4,1]T(2,1,0), to_apply=sum
}
)"},
    {"StackFramesAndQuotedBackendConfig", R"(HloModule frames

FileNames
1 "main.py"

FunctionNames
1 "f"

FileLocations
1 {file_name_id=1 function_name_id=1 line=7 end_line=7 column=3 end_column=9}

StackFrames
1 {file_location_id=1 parent_frame_id=1}

ENTRY main {
  x = f32[2] parameter(0), metadata={op_name="x" stack_frame_id=1}
  ROOT y = f32[2] negate(x), metadata={op_name="neg" stack_frame_id=1}, backend_config="{\"a\":1}"
}
)"},
    {"ScheduledModuleKeepsItsOrder", R"(
HloModule sched, is_scheduled=true
ENTRY main {
  x = f32[2] parameter(0)
  c = f32[2] constant({1, 2})
  a = f32[2] add(x, c)
  n = f32[2] negate(x)
  ROOT m = f32[2] multiply(n, a)
}
)"},
    {"ManyOperands", R"(
ENTRY e {
  a = s32[] parameter(0)
  ROOT t = (s32[], s32[], s32[], s32[], s32[], s32[], s32[], s32[], s32[], s32[], s32[], s32[]) tuple(a, a, a, a, a, a, a, a, a, a, a, a)
}
)"},
};

class NonCanonicalTextTest : public ::testing::TestWithParam<CanonicalCase> {};

TEST_P(NonCanonicalTextTest, FirstPrintIsAFixedPoint) {
  const std::string once = Reprint(GetParam().text);
  ASSERT_EQ(once.find("parse error"), std::string::npos) << once;
  const std::string twice = Reprint(once);
  EXPECT_TRUE(twice == once) << FirstDifference(once, twice) << "\n--- first print ---\n" << once;
}

INSTANTIATE_TEST_SUITE_P(AllCases, NonCanonicalTextTest, ::testing::ValuesIn(kNonCanonicalCases),
                         [](const ::testing::TestParamInfo<CanonicalCase>& info) {
                           return std::string(info.param.name);
                         });

// What some non-canonical inputs print as, exactly.
TEST(NonCanonicalTextTest, AddsPercentOperandShapesLayoutsAndHeader) {
  EXPECT_EQ(Reprint(R"(
ENTRY e {
  p = f32[2,2] parameter(0)
  ROOT n = f32[2,2] negate(p)
}
)"),
            R"(HloModule module_e, entry_computation_layout={(f32[2,2]{1,0})->f32[2,2]{1,0}}

ENTRY %e (p: f32[2,2]) -> f32[2,2] {
  %p = f32[2,2]{1,0} parameter(0)
  ROOT %n = f32[2,2]{1,0} negate(f32[2,2]{1,0} %p)
}

)");
}

TEST(NonCanonicalTextTest, ExplicitAsyncComputationPrintsAsSugar) {
  const std::string printed = Reprint(R"(
HloModule async
wrapped {
  p0 = f32[4] parameter(0)
  ROOT cc = f32[8] custom-call(p0), custom_call_target="op"
}
ENTRY main {
  x = f32[4] parameter(0)
  start = ((f32[4]), f32[8], s32[]) async-start(x), calls=wrapped
  update = ((f32[4]), f32[8], s32[]) async-update(start)
  ROOT done = f32[8] async-done(update)
}
)");
  EXPECT_THAT(printed, HasSubstr("%start = ((f32[4]{0}), f32[8]{0}, s32[]) custom-call-start("
                                 "f32[4]{0} %x), custom_call_target=\"op\"\n"));
  EXPECT_THAT(printed, HasSubstr("custom-call-update(((f32[4]{0}), f32[8]{0}, s32[]) %start)\n"));
  EXPECT_THAT(printed, HasSubstr("custom-call-done(((f32[4]{0}), f32[8]{0}, s32[]) %update)\n"));
  EXPECT_THAT(printed, Not(HasSubstr("wrapped")));
}

TEST(NonCanonicalTextTest, AsyncComputationCalledTwiceStaysExplicit) {
  const std::string printed = Reprint(R"(
HloModule async
wrapped {
  p0 = f32[4] parameter(0)
  ROOT n = f32[4] negate(p0)
}
ENTRY main {
  x = f32[4] parameter(0)
  c = f32[4] call(x), to_apply=wrapped
  start = ((f32[4]), f32[4], s32[]) async-start(c), calls=wrapped
  ROOT done = f32[4] async-done(start)
}
)");
  EXPECT_THAT(printed, HasSubstr("async-start(f32[4]{0} %c), calls=%wrapped\n"));
  EXPECT_THAT(printed, HasSubstr("async-done(((f32[4]{0}), f32[4]{0}, s32[]) %start)\n"));
  EXPECT_THAT(printed, HasSubstr("%wrapped (p0: f32[4]) -> f32[4] {"));
}

TEST(NonCanonicalTextTest, NormalizesShardingsReplicaGroupsAndStackFrames) {
  const std::string printed = Reprint(R"(
HloModule m

FileNames
1 "main.py"

FunctionNames
1 "f"

FileLocations
1 {file_name_id=1 function_name_id=1 line=7 end_line=7 column=3 end_column=9}

StackFrames
1 {file_location_id=1 parent_frame_id=1}

sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY main {
  x = f32[8] parameter(0), sharding={devices=[1,4]<=[4] last_tile_dims={replicated}}
  ROOT r = f32[8] all-reduce(x), replica_groups=[1,4]<=[1,4,1]T(2,1,0), to_apply=sum, metadata={op_name="r" stack_frame_id=1}, backend_config="{\"k\":1}"
}
)");
  EXPECT_THAT(printed, HasSubstr("parameter(0), sharding={replicated}\n"));
  EXPECT_THAT(printed,
              HasSubstr("replica_groups=[1,4]<=[4], to_apply=%sum, metadata={op_name=\"r\" "
                        "source_file=\"main.py\" source_line=7 source_column=3}, "
                        "backend_config={\"k\":1}\n"));
}

TEST(NonCanonicalTextTest, DropsAttributesEqualToTheirDefaults) {
  const std::string printed = Reprint(R"(
HloModule m
ENTRY main {
  x = f32[4,4] parameter(0)
  s = f32[2,4] slice(x), slice={[0:2:1], [0:4:1]}
  c = pred[2,4] compare(s, s), direction=GT, type=FLOAT
  u = pred[2,4] compare(u32[2,4] convert(s), u32[2,4] convert(s)), direction=GT, type=UNSIGNED
  d = f32[4,4] dot(x, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={default,default}
  ROOT t = (f32[2,4], pred[2,4], pred[2,4], f32[4,4]) tuple(s, c, u, d)
}
)");
  EXPECT_THAT(printed, HasSubstr("slice={[0:2], [0:4]}\n"));
  EXPECT_THAT(printed, HasSubstr("%s), direction=GT\n"));
  EXPECT_THAT(printed, HasSubstr("%convert.anon.1), direction=GT\n"));
  EXPECT_THAT(printed, HasSubstr("lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"));
}

// ---------------------------------------------------------------------------
// The pieces of the API.

constexpr char kSmallModule[] =
    R"(HloModule small, entry_computation_layout={(f32[2]{0}, f32[2]{0})->f32[2]{0}}

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %sum = f32[] add(f32[] %a, f32[] %b)
}

ENTRY %main (x: f32[2], y: f32[2]) -> f32[2] {
  %x = f32[2]{0} parameter(0)
  %y = f32[2]{0} parameter(1)
  %add = f32[2]{0} add(f32[2]{0} %x, f32[2]{0} %y), metadata={op_name="add"}, backend_config={"k":1}
  %constant = f32[] constant(0)
  %reduce = f32[] reduce(f32[2]{0} %add, f32[] %constant), dimensions={0}, to_apply=%add
  %broadcast = f32[2]{0} broadcast(f32[] %reduce), dimensions={}
  ROOT %multiply = f32[2]{0} multiply(f32[2]{0} %broadcast, f32[2]{0} %add)
}

)";

std::unique_ptr<HloModule> ParseOrDie(absl::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status().message();
  return module.ok() ? std::move(*module) : nullptr;
}

const HloInstruction* Find(const HloModule& module, absl::string_view name) {
  for (const HloComputation* computation : module.computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      if (instruction->name() == name) return instruction;
    }
  }
  return nullptr;
}

TEST(PrintApiTest, InstructionAlone) {
  auto module = ParseOrDie(kSmallModule);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(PrintHloInstruction(*Find(*module, "reduce")),
            "%reduce = f32[] reduce(f32[2]{0} %add, f32[] %constant), dimensions={0}, "
            "to_apply=%add");
  EXPECT_EQ(PrintHloInstruction(*Find(*module, "multiply")),
            "%multiply = f32[2]{0} multiply(f32[2]{0} %broadcast, f32[2]{0} %add)");
  EXPECT_EQ(PrintHloInstruction(*Find(*module, "add")),
            "%add = f32[2]{0} add(f32[2]{0} %x, f32[2]{0} %y), metadata={op_name=\"add\"}, "
            "backend_config={\"k\":1}");
}

TEST(PrintApiTest, ControlPredecessorsPrintFirstInPostOrder) {
  // XLA's post order visits an instruction's control predecessors before
  // its operands.
  const std::string text = R"(HloModule m, entry_computation_layout={(f32[2]{0})->f32[2]{0}}

ENTRY %main (x: f32[2]) -> f32[2] {
  %constant = f32[2]{0} constant({1, 2})
  %x = f32[2]{0} parameter(0)
  %negate = f32[2]{0} negate(f32[2]{0} %x)
  ROOT %add = f32[2]{0} add(f32[2]{0} %negate, f32[2]{0} %x), control-predecessors={%constant}
}

)";
  EXPECT_EQ(Reprint(text), text);
  auto module = ParseOrDie(text);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(PrintHloInstruction(*Find(*module, "add")),
            "%add = f32[2]{0} add(f32[2]{0} %negate, f32[2]{0} %x), "
            "control-predecessors={%constant}");
}

TEST(PrintApiTest, ComputationAlone) {
  auto module = ParseOrDie(kSmallModule);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(PrintHloComputation(*module->GetComputationWithName("add")),
            "%add (a: f32[], b: f32[]) -> f32[] {\n"
            "  %a = f32[] parameter(0)\n"
            "  %b = f32[] parameter(1)\n"
            "  ROOT %sum = f32[] add(f32[] %a, f32[] %b)\n"
            "}");
  // The entry prints without "ENTRY" on its own.
  EXPECT_THAT(PrintHloComputation(*module->entry_computation()),
              StartsWith("%main (x: f32[2], y: f32[2]) -> f32[2] {\n"));
}

TEST(PrintApiTest, ShortParsableOptions) {
  auto module = ParseOrDie(kSmallModule);
  ASSERT_NE(module, nullptr);
  const std::string short_text = PrintHloModule(*module, HloPrintOptions::ShortParsable());
  EXPECT_EQ(short_text,
            "HloModule small, entry_computation_layout={(f32[2]{0}, f32[2]{0})->f32[2]{0}}\n\n"
            "add {\n"
            "  a = f32[] parameter(0)\n"
            "  b = f32[] parameter(1)\n"
            "  ROOT sum = f32[] add(a, b)\n"
            "}\n\n"
            "ENTRY main {\n"
            "  x = f32[2]{0} parameter(0)\n"
            "  y = f32[2]{0} parameter(1)\n"
            "  add = f32[2]{0} add(x, y)\n"
            "  constant = f32[] constant(0)\n"
            "  reduce = f32[] reduce(add, constant), dimensions={0}, to_apply=add\n"
            "  broadcast = f32[2]{0} broadcast(reduce), dimensions={}\n"
            "  ROOT multiply = f32[2]{0} multiply(broadcast, add)\n"
            "}\n\n");
  // Short text parses back to the same module.
  EXPECT_EQ(Reprint(short_text, HloPrintOptions::ShortParsable()), short_text);
  EXPECT_EQ(Reprint(kSmallModule), kSmallModule);
}

TEST(PrintApiTest, OptionsToggleEachPart) {
  auto module = ParseOrDie(kSmallModule);
  ASSERT_NE(module, nullptr);
  const HloInstruction& add = *Find(*module, "add");
  HloPrintOptions options;
  options.print_metadata = false;
  EXPECT_EQ(PrintHloInstruction(add, options),
            "%add = f32[2]{0} add(f32[2]{0} %x, f32[2]{0} %y), backend_config={\"k\":1}");
  options = HloPrintOptions();
  options.print_backend_config = false;
  options.print_layouts = false;
  EXPECT_EQ(PrintHloInstruction(add, options),
            "%add = f32[2] add(f32[2] %x, f32[2] %y), metadata={op_name=\"add\"}");
  options = HloPrintOptions();
  options.print_operand_shapes = false;
  options.print_percent = false;
  EXPECT_EQ(PrintHloInstruction(add, options),
            "add = f32[2]{0} add(x, y), metadata={op_name=\"add\"}, backend_config={\"k\":1}");
}

TEST(PrintApiTest, LargeConstantsCanBeElided) {
  auto module = ParseOrDie(R"(
ENTRY e {
  small = f32[10] constant({0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
  large = f32[11] constant({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
  ROOT t = (f32[10], f32[11]) tuple(small, large)
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_THAT(PrintHloModule(*module), HasSubstr("constant({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10})"));
  HloPrintOptions options;
  options.print_large_constants = false;
  EXPECT_EQ(PrintHloInstruction(*Find(*module, "large"), options),
            "%large = f32[11]{0} constant({...})");
  EXPECT_EQ(PrintHloInstruction(*Find(*module, "small"), options),
            "%small = f32[10]{0} constant({0, 1, 2, 3, 4, 5, 6, 7, 8, 9})");
}

TEST(PrintApiTest, AttributeValues) {
  Window window;
  window.dimensions.resize(2);
  window.dimensions[0].size = 3;
  window.dimensions[1].size = 2;
  EXPECT_EQ(PrintWindow(window), "size=3x2");
  window.dimensions[1].stride = 2;
  window.dimensions[0].padding_low = 1;
  window.dimensions[1].base_dilation = 2;
  window.dimensions[0].window_dilation = 3;
  window.dimensions[1].window_reversal = true;
  EXPECT_EQ(PrintWindow(window),
            "size=3x2 stride=1x2 pad=1_0x0_0 lhs_dilate=1x2 rhs_dilate=3x1 rhs_reversal=0x1");

  ConvolutionDimensionNumbers dnums;
  dnums.input_batch_dimension = 0;
  dnums.input_feature_dimension = 3;
  dnums.input_spatial_dimensions = {1, 2};
  dnums.kernel_input_feature_dimension = 2;
  dnums.kernel_output_feature_dimension = 3;
  dnums.kernel_spatial_dimensions = {0, 1};
  dnums.output_batch_dimension = 0;
  dnums.output_feature_dimension = 1;
  dnums.output_spatial_dimensions = {2, 4};
  EXPECT_EQ(PrintConvolutionDimensionNumbers(dnums), "b01f_01io->bf0?1");

  PaddingConfig padding;
  padding.dimensions = {{1, 2, 0}, {-1, 0, 0}};
  EXPECT_EQ(PrintPaddingConfig(padding), "1_2x-1_0");
  padding.dimensions[1].interior_padding = 3;
  EXPECT_EQ(PrintPaddingConfig(padding), "1_2_0x-1_0_3");

  OpMetadata metadata;
  metadata.op_type = "Add";
  metadata.op_name = "a/\"b\"";
  metadata.source_line = 4;
  metadata.stack_frame_id = 2;
  EXPECT_EQ(PrintOpMetadata(metadata),
            "op_type=\"Add\" op_name=\"a/\\\"b\\\"\" source_line=4 stack_frame_id=2");

  EXPECT_EQ(PrintFrontendAttributes({{"b", "x"}, {"a", "{\"j\":1}"}}), "{a={\"j\":1},b=\"x\"}");

  ProgramShape layout;
  for (int i = 0; i < 6; ++i)
    layout.parameters.push_back(Shape::MakeArrayWithDescendingLayout(F32, {2}));
  layout.result = Shape::MakeTuple({});
  EXPECT_EQ(PrintComputationLayout(layout),
            "(f32[2]{0}, f32[2]{0}, f32[2]{0}, f32[2]{0}, f32[2]{0}, /*index=5*/f32[2]{0})->()");
}

TEST(PrintApiTest, Shardings) {
  auto sharding = [](absl::string_view text) {
    absl::StatusOr<HloSharding> parsed = ParseSharding(text);
    EXPECT_TRUE(parsed.ok()) << text << ": " << parsed.status().message();
    return parsed.ok() ? PrintSharding(*parsed) : std::string();
  };
  for (const char* canonical :
       {"{replicated}", "{manual}", "{unknown}", "{unreduced}", "{maximal device=3}",
        "{devices=[2,2]0,2,1,3}", "{devices=[4,2]<=[8]}", "{devices=[2,4]<=[4,2]T(1,0)}",
        "{devices=[2,1,2]<=[4] last_tile_dim_replicate}",
        "{devices=[2,2,2]<=[8] last_tile_dims={manual, replicated}}", "{replicated shard_as 3}",
        "{devices=[2]0,1 shard_like 1}", "{maximal device=0 metadata={op_name=\"a\"}}",
        "{replicated metadata={{op_name=\"a\"}, {op_type=\"b\"}}}",
        "{{replicated}, {maximal device=1}, {manual}, {replicated}, {replicated}, "
        "/*index=5*/{devices=[2]0,1}}",
        "{}"}) {
    EXPECT_EQ(sharding(canonical), canonical);
  }
  absl::StatusOr<HloSharding> with_metadata =
      ParseSharding("{replicated metadata={op_name=\"a\"}}");
  ASSERT_TRUE(with_metadata.ok());
  EXPECT_EQ(PrintSharding(*with_metadata, /*include_metadata=*/false), "{replicated}");
}

// A module built through the IR API rather than parsed: no
// entry_computation_layout in its config, a schedule that is not post order.
TEST(PrintApiTest, ModuleBuiltInCode) {
  HloModule module("built");
  auto computation = std::make_unique<HloComputation>("entry");
  const Shape shape = Shape::MakeArrayWithDescendingLayout(F32, {3});
  HloInstruction* p = computation->AddInstruction(HloInstruction::CreateParameter(0, shape, "p"));
  HloInstruction* c = computation->AddInstruction(
      HloInstruction::CreateConstant(Literal::CreateR1<float>({1.0f, 2.0f, 3.0f})));
  HloInstruction* n =
      computation->AddInstruction(HloInstruction::CreateUnary(shape, HloOpcode::kNegate, p));
  HloInstruction* a =
      computation->AddInstruction(HloInstruction::CreateBinary(shape, HloOpcode::kAdd, n, c));
  computation->set_root_instruction(a);
  HloComputation* entry = module.AddEntryComputation(std::move(computation));
  EXPECT_EQ(PrintHloModule(module),
            "HloModule built, entry_computation_layout={(f32[3]{0})->f32[3]{0}}\n\n"
            "ENTRY %entry (p: f32[3]) -> f32[3] {\n"
            "  %p = f32[3]{0} parameter(0)\n"
            "  %negate = f32[3]{0} negate(f32[3]{0} %p)\n"
            "  %constant = f32[3]{0} constant({1, 2, 3})\n"
            "  ROOT %add = f32[3]{0} add(f32[3]{0} %negate, f32[3]{0} %constant)\n"
            "}\n\n");
  // With a schedule, its order is kept.
  module.mutable_schedule().SetSequence(entry, {c, p, n, a});
  EXPECT_THAT(PrintHloModule(module),
              HasSubstr("HloModule built, is_scheduled=true, entry_computation_layout="));
  EXPECT_THAT(PrintHloModule(module),
              HasSubstr("{\n  %constant = f32[3]{0} constant({1, 2, 3})\n  %p = f32[3]{0} "
                        "parameter(0)\n"));
  const std::string printed = PrintHloModule(module);
  EXPECT_EQ(Reprint(printed), printed);
}

// Canonical texts from directories, e.g. XLA's own round-trip texts:
// TESSERA_CANONICAL_HLO_DIR (default options) and
// TESSERA_CANONICAL_SHORT_HLO_DIR (HloPrintOptions::ShortParsable()).
TEST(CanonicalDirectoryTest, EveryTextPrintsUnchanged) {
  CheckCanonicalDirectory("TESSERA_CANONICAL_HLO_DIR", HloPrintOptions::Default());
}

TEST(CanonicalDirectoryTest, EveryShortTextPrintsUnchanged) {
  CheckCanonicalDirectory("TESSERA_CANONICAL_SHORT_HLO_DIR", HloPrintOptions::ShortParsable());
}

}  // namespace
}  // namespace tessera
