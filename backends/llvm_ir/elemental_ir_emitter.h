// ElementalIrEmitter: scalar LLVM IR for every elementwise HLO opcode, with
// exactly the reference evaluator's semantics (hlo/evaluator/
// evaluator_elementwise.cc and evaluator_convert.cc):
//
//  - integers wrap; x / 0 is -1 (all bits), x % 0 is x, INT_MIN / -1 is
//    INT_MIN, INT_MIN % -1 is 0; shifts by >= the bit width give 0 or the
//    sign fill; integer power squares and multiplies;
//  - F8*, F16 and BF16 compute in f32 and round once to their type;
//  - maximum/minimum propagate NaN and order -0 < +0;
//  - convert saturates float -> int (NaN -> 0), and narrows to f16/bf16
//    with a single correct rounding (through a round-to-odd f32);
//  - compare is IEEE, or a total order on the bits for TOTALORDER;
//  - complex arithmetic follows C99 Annex G as libgcc and glibc do it.
//
// Values in IR (see IrValueType): PRED is i1, BF16 is its i16 bits, F8* its
// i8 bits, F16 is `half`, C64/C128 are {re, im} structs.
//
// The transcendental functions go through one virtual hook,
// EmitMathFunction, that by default calls the C library (or the LLVM
// intrinsic that becomes that call): a backend swaps in its own
// implementation function by function (e.g. vectorizable polynomials).
//
// On top of the scalar ops, MakeElementGenerator builds the per-element
// generator of an instruction from its operands' generators: elementwise
// ops, broadcast, iota, reshape, transpose, slice, reverse, copy, and
// (elemental_ir_emitter_indexing.cc) pad, concatenate, dynamic-slice,
// dynamic-update-slice and gather.
#ifndef TESSERA_BACKENDS_LLVM_IR_ELEMENTAL_IR_EMITTER_H_
#define TESSERA_BACKENDS_LLVM_IR_ELEMENTAL_IR_EMITTER_H_

#include <cstdint>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "backends/llvm_ir/loop_emitter.h"
#include "hlo/ir/hlo_instruction.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace tessera {
namespace llvm_ir {

// The real functions behind the transcendental ops (and the helpers the
// complex formulas need).  Each takes and returns f32 or f64 values.
enum class MathFunction {
  kAcos, kAcosh, kAsin, kAsinh, kAtan, kAtan2, kAtanh, kCbrt, kCos, kCosh, kErf, kExp, kExpm1,
  kHypot, kLog, kLog1p, kLogistic, kPow, kRsqrt, kSin, kSinh, kSqrt, kTan, kTanh,
};
absl::string_view MathFunctionName(MathFunction function);  // "exp", "atan2", ...
// The function a float op computes (exponential -> kExp, power -> kPow,
// atan2 -> kAtan2, ...); nullopt for ops that are not such a function.
std::optional<MathFunction> MathFunctionOf(HloOpcode opcode);

using GeneratorMap = absl::flat_hash_map<const HloInstruction*, ElementGenerator>;

// The generator of a pad, concatenate, dynamic-slice, dynamic-update-slice
// or gather from its operands' generators: reads at clamped
// indices and selects, no branches (elemental_ir_emitter_indexing.cc).
absl::StatusOr<ElementGenerator> MakeIndexingGenerator(const HloInstruction& hlo,
                                                       std::vector<ElementGenerator> operands,
                                                       llvm::IRBuilder<>* b);

// Where a pad's element at `index` comes from: the operand's index
// (clamped into it) and whether the element is the operand's (false: the
// padding value).  Dimension `known_inside`, where not -1, is taken to be
// inside the operand (the caller loops only over that part of it, without
// interior padding there): its index is `index` less the low edge, not
// clamped, so that a loop over it reads the operand contiguously.
struct PadSource {
  std::vector<llvm::Value*> operand_index;
  llvm::Value* inside;
};
PadSource PadSourceIndex(const HloInstruction& pad, const IrIndex& index, int64_t known_inside,
                         llvm::IRBuilder<>* b);

class ElementalIrEmitter {
 public:
  ElementalIrEmitter(llvm::Module* module, llvm::IRBuilder<>* b) : module_(module), b_(b) {}
  virtual ~ElementalIrEmitter() = default;

  // One element of the elementwise instruction `hlo`, given one element of
  // each operand (as IR values of the operands' element types).  Errors for
  // op/type combinations the evaluator rejects, and Unimplemented for
  // `map` and for bitcast-convert between different widths.
  absl::StatusOr<llvm::Value*> EmitElementwise(const HloInstruction& hlo,
                                               absl::Span<llvm::Value* const> operands);

  // `value` of type `from` converted as XLA's convert does.
  absl::StatusOr<llvm::Value*> EmitConvert(llvm::Value* value, PrimitiveType from,
                                           PrimitiveType to);

  // The generator of `hlo`'s elements given its operands' generators
  // (parameters and constants are the caller's: they read arrays).
  absl::StatusOr<ElementGenerator> MakeElementGenerator(const HloInstruction* hlo,
                                                        const GeneratorMap& operands);

  llvm::IRBuilder<>* builder() const { return b_; }
  llvm::Module* module() const { return module_; }

 protected:
  // `function` of f32/f64 `args`.  The default calls the C library (glibc's
  // `expf`, `erf`, ...), or uses the LLVM intrinsic that lowers to the same
  // call or to an exact instruction (sqrt), and spells logistic as
  // 1 / (1 + exp(-x)) and rsqrt as 1 / sqrt(x), as the evaluator does.
  virtual absl::StatusOr<llvm::Value*> EmitMathFunction(MathFunction function,
                                                        absl::Span<llvm::Value* const> args);

  // A call to the C function `name` (declared on first use, marked as not
  // touching memory the IR can see).
  llvm::Value* CallLibrary(absl::string_view name, llvm::Type* result,
                           absl::Span<llvm::Value* const> args);

 private:
  // Op families (elemental_ir_emitter.cc; conversions in
  // elemental_ir_emitter_convert.cc).
  absl::StatusOr<llvm::Value*> EmitPredOp(const HloInstruction& hlo,
                                          absl::Span<llvm::Value* const> operands);
  absl::StatusOr<llvm::Value*> EmitIntegerOp(const HloInstruction& hlo, PrimitiveType type,
                                             absl::Span<llvm::Value* const> operands);
  absl::StatusOr<llvm::Value*> EmitFloatOp(const HloInstruction& hlo, PrimitiveType type,
                                           absl::Span<llvm::Value* const> operands);
  absl::StatusOr<llvm::Value*> EmitCompare(const HloInstruction& hlo, PrimitiveType type,
                                           llvm::Value* lhs, llvm::Value* rhs);
  absl::StatusOr<llvm::Value*> EmitClamp(PrimitiveType type, llvm::Value* low, llvm::Value* x,
                                         llvm::Value* high);
  absl::StatusOr<llvm::Value*> EmitBitcastConvert(llvm::Value* value, PrimitiveType from,
                                                  PrimitiveType to);
  // A bitcast-convert between element widths (elemental_ir_emitter_convert.cc).
  absl::StatusOr<ElementGenerator> MakeWidthChangingBitcastConvert(const HloInstruction& hlo,
                                                                   ElementGenerator operand);
  absl::StatusOr<llvm::Value*> EmitReducePrecision(llvm::Value* value, PrimitiveType type,
                                                   int exponent_bits, int mantissa_bits);
  absl::StatusOr<llvm::Value*> EmitIntegerPower(llvm::Value* base, llvm::Value* exponent,
                                                bool is_signed);

  // Float helpers: F16/BF16 <-> the f32 compute type, and float max/min.
  llvm::Value* ToCompute(llvm::Value* value, PrimitiveType type);
  llvm::Value* FromCompute(llvm::Value* value, PrimitiveType type);
  llvm::Value* FloatToBf16(llvm::Value* value);
  // An F8* value's i8 bits to f32 (exact) and f32 to them (to nearest
  // even), as float8.h defines them.
  llvm::Value* Float8ToFloat(llvm::Value* value, const FloatFormat& format);
  llvm::Value* FloatToFloat8(llvm::Value* value, const FloatFormat& format);
  llvm::Value* FloatMax(llvm::Value* a, llvm::Value* b);
  llvm::Value* FloatMin(llvm::Value* a, llvm::Value* b);
  llvm::Value* FloatMaxMin(llvm::Value* a, llvm::Value* b, bool is_max);
  llvm::Value* RoundToOddF32(llvm::Value* value, PrimitiveType from);

  // Complex numbers (elemental_ir_emitter_complex.cc).
  absl::StatusOr<llvm::Value*> EmitComplexOp(const HloInstruction& hlo, PrimitiveType type,
                                             absl::Span<llvm::Value* const> operands);
  llvm::Value* MakeComplex(llvm::Value* re, llvm::Value* im);
  llvm::Value* Re(llvm::Value* z);
  llvm::Value* Im(llvm::Value* z);
  llvm::Value* ComplexAdd(llvm::Value* x, llvm::Value* y);
  llvm::Value* ComplexMultiply(llvm::Value* x, llvm::Value* y);
  llvm::Value* ComplexDivide(llvm::Value* x, llvm::Value* y);
  absl::StatusOr<llvm::Value*> ComplexAbs(llvm::Value* z);
  // glibc's complex function `name` ("cexp", "clog", ...; the f suffix is
  // added for C64) of one or two complex values.
  llvm::Value* CallComplexLibrary(absl::string_view name, absl::Span<llvm::Value* const> args);

  llvm::Module* module_;
  llvm::IRBuilder<>* b_;
};

}  // namespace llvm_ir
}  // namespace tessera

#endif  // TESSERA_BACKENDS_LLVM_IR_ELEMENTAL_IR_EMITTER_H_
