// What the CPU kernel emitters (loop_kernel.cc, reduce_emitter.cc,
// row_column_kernels.cc, transpose_kernels.cc, segment_kernels.cc,
// scan_kernels.cc, scatter_kernel.cc, variadic_reduce_kernel.cc,
// comparator_kernel.cc) share.
// Includes LLVM headers: for those files only.
#ifndef TESSERA_BACKENDS_CPU_LOOP_KERNEL_INTERNAL_H_
#define TESSERA_BACKENDS_CPU_LOOP_KERNEL_INTERNAL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "backends/llvm_ir/elemental_ir_emitter.h"
#include "backends/llvm_ir/loop_emitter.h"
#include "hlo/ir/hlo_computation.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

namespace tessera {
namespace cpu {

// Emits the scalar computation `computation` on `parameters` (one value
// per parameter, in order) at b's position: its root's value, or the
// values of a tuple root's operands.
absl::StatusOr<std::vector<llvm::Value*>> EmitScalarComputation(
    const HloComputation& computation, const std::vector<llvm::Value*>& parameters,
    llvm_ir::ElementalIrEmitter* emitter, llvm::IRBuilder<>* b);

// Emits the two-parameter scalar computation `reducer` (a reduce's
// reducer, a scatter's update computation) on `accumulator` (parameter 0)
// and `x` (parameter 1) at b's position.
absl::StatusOr<llvm::Value*> EmitReducer(const HloComputation& reducer, llvm::Value* accumulator,
                                         llvm::Value* x, llvm_ir::ElementalIrEmitter* emitter,
                                         llvm::IRBuilder<>* b);

// Every transitive user of `hlo` reads each of its elements at most once
// (elementwise ops, reshapes, transposes, slices, reverses, a gather's
// indices for one-element slices): a generator for `hlo` is not recomputed
// per element of a broadcast.
bool ReadOncePerElement(const HloInstruction* hlo);

// Whether every transitive user of `hlo` (within its computation, not past
// `root`) is `allowed` (loop_kernel.cc).
bool EveryUserUpTo(const HloInstruction* hlo, const HloInstruction* root,
                   absl::FunctionRef<bool(const HloInstruction*)> allowed);

// The instructions a kernel's root (its computation's, or the operand a
// root view shows) reads at its own index: the root, and the same-rank
// operands of elementwise ops among them (loop_kernel.cc).
absl::flat_hash_set<const HloInstruction*> InstructionsAtRootIndex(const HloInstruction& root);

// OK when `hlo` (a reduce or reduce-window) has a two-parameter reducer of
// scalar elementwise ops on its result's element type.
absl::Status CheckScalarReducer(const HloInstruction& hlo);

// Called with each element a reduce folds in, and its index in the
// reduce's operand (row kernels keep it, to read it again in a later pass).
using ElementSink = std::function<absl::Status(const llvm_ir::IrIndex& index, llvm::Value* value)>;

// A generator for a one-operand `reduce` whose reducer is a scalar
// elementwise computation (reduce_emitter.cc says the two orders: the
// evaluator's serial one, or vector lanes combined pairwise where
// `reorder_floats` or the op allows).  `computed_once_per_row`: a row
// kernel computes it once per row, so it may be read other than
// elementwise.
absl::StatusOr<llvm_ir::ElementGenerator> MakeReduceGenerator(
    const HloInstruction* reduce, const llvm_ir::GeneratorMap& generators,
    llvm_ir::ElementalIrEmitter* emitter, llvm::IRBuilder<>* b, bool reorder_floats,
    bool computed_once_per_row, ElementSink sink = nullptr);

// A generator for a one-input `reduce-window` in the evaluator's window
// order.
absl::StatusOr<llvm_ir::ElementGenerator> MakeReduceWindowGenerator(
    const HloInstruction* hlo, const llvm_ir::GeneratorMap& generators,
    llvm_ir::ElementalIrEmitter* emitter, llvm::IRBuilder<>* b);

// A row kernel: reduces whose results are read through broadcasts (a
// softmax's max and sum, a layer norm's mean and variance, fused with what
// uses them) are computed once per row -- per index of the root's `rows`
// leading dimensions -- before the loops over the rest of the row, which
// then read them as values.  The row stays in cache between its passes, so
// the kernel reads its input from memory once.
struct RowPlan {
  int64_t rows = 0;  // leading dimensions of the root that index a row
  std::vector<const HloInstruction*> reduces;  // post order
  // Operands of those reduces with other users in the row (a softmax's
  // exp): kept in a per-row scratch while the reduce folds them, read from
  // there afterwards instead of being computed again.
  std::vector<const HloInstruction*> kept;
  int64_t row_elements = 0;  // of the root's trailing (non-row) dimensions
};

std::optional<RowPlan> PlanRowKernel(const HloComputation& computation, const Shape& root_shape);

// A column kernel: one reduce that keeps its operand's minor-most
// dimension (a bias gradient: [batch, features] -> [features]), with an
// elementwise epilogue in its result's space.  Per tile of kColumnTile
// consecutive results along that dimension, the kernel folds the reduced
// dimensions (row-major, outermost loops) into a tile of accumulators,
// whose inner loop runs along the contiguous dimension and vectorizes, then
// applies the epilogue to the tile.  Each result still folds its elements
// from the init value in the evaluator's order: bit for bit.  A tile of
// 2048 (8 KiB of f32 accumulators, in L1) covers a thread's share of most
// rows, so the input is read row after row; tiles of 64 read it in 256-byte
// pieces a whole row apart, a page each (a 4096x2048 column sum: 1.85 ms
// with 64, 1.02 with 2048 and masked accumulator stores, 0.58 unmasked;
// XLA 0.57).
constexpr int64_t kColumnTile = 2048;

struct ColumnPlan {
  const HloInstruction* reduce = nullptr;
  int64_t input_minor = 0;   // the operand's minor-most dimension (kept)
  int64_t result_minor = 0;  // its position in the reduce's (and root's) result
};

std::optional<ColumnPlan> PlanColumnKernel(const HloComputation& computation,
                                           const Shape& root_shape);

// The column kernel's loops over the result's minor dimension from `start`
// to `stop`, inside the loops over its other dimensions (row_column_kernels.cc).
absl::Status EmitColumnTiles(const ColumnPlan& plan, llvm::Value* start, llvm::Value* stop,
                             std::vector<llvm::Value*> multi_index, llvm::Value* linear,
                             int64_t minor_stride, const Shape& shape,
                             llvm::AllocaInst* accumulators,
                             const std::shared_ptr<llvm::Value*>& tile_start,
                             const llvm_ir::ElementGenerator& input,
                             const llvm_ir::ElementGenerator& init,
                             const llvm_ir::ElementGenerator& root, const llvm_ir::IrArray& result,
                             llvm_ir::ElementalIrEmitter* emitter, llvm::IRBuilder<>* b);

// A transposing kernel: an operand is contiguous along a root dimension
// `across` other than the root's minor-most one `minor` (a transpose, or a
// copy to another layout, and what is fused with it).  Looping over the
// result in its order would read that operand a whole row apart per
// element: every element a cache line of its own, every row of the result
// a page per element (a 2048x2048 f32 transpose ran 11.7 ms, 2.7 GB/s).
// The kernel loops over tiles of kTransposeTile x kTransposeTile elements of
// those two dimensions instead, so that a tile's cache lines of the operand
// stay in L1 while the tile's rows of the result are written.  Where the
// operand's elements are 4 bytes, a whole tile of it is transposed by the
// tile routine (transpose_tile.h: in registers) into a stack tile, which
// the fused computation then reads along `minor`, contiguous (the
// 2048x2048 transpose: 0.5-1.0 ms as the machine's load varied, where XLA
// took 0.6-0.7); other tiles read the operand where it is, the vectorizer
// gathering them (11.7 -> 1.25 ms; tiles of 8 ran as fast, of 32 at 2.2
// ms, of 64 at 3.5).
constexpr int64_t kTransposeTile = 16;
// Results whose minor dimension has at most this many elements loop in
// their own order (transpose_kernels.cc says why).
constexpr int64_t kTransposeTileMinRow = 256;

struct TransposePlan {
  int64_t across = 0;
  int64_t minor = 0;
  // The operand read across the rows (a parameter of the computation), and
  // the root dimension each of its dimensions carries; null when something
  // else reads it too (a broadcast or a reduce of it), as a tile of it in
  // the stack would not hold what that reads.
  const HloInstruction* parameter = nullptr;
  std::vector<int64_t> parameter_to_root;
};

std::optional<TransposePlan> PlanTransposeKernel(const HloComputation& computation,
                                                 const HloInstruction& root,
                                                 const Shape& root_shape);

// Whether the plan's operand goes through the tile routine (4-byte
// elements).
bool TransposesInRegisters(const TransposePlan& plan);

// The tile of the plan's operand in the stack, while the loops over a whole
// tile run: its generator reads element [across - across_first][minor -
// minor_first] of `buffer` then, and the operand's memory otherwise.
struct TransposedTile {
  llvm::Value* buffer = nullptr;
  llvm::Type* element_type = nullptr;
  llvm::Value* across_first = nullptr;
  llvm::Value* minor_first = nullptr;
  bool active = false;
};

// The plan's operand's generator: reads from `tile` while it is active.
llvm_ir::ElementGenerator MakeTransposedTileGenerator(const TransposePlan& plan,
                                                      const llvm_ir::IrArray& operand,
                                                      std::shared_ptr<TransposedTile> tile,
                                                      llvm::IRBuilder<>* b);

// The transposing kernel's loops over the whole result (its major-most
// dimension from `begin` to `end`), writing the root's value per element
// (transpose_kernels.cc).  `tile` (with the operand's array) when the
// operand is transposed in registers, else null.
absl::Status EmitTransposeTiles(const TransposePlan& plan, const Shape& shape, llvm::Value* begin,
                                llvm::Value* end, const llvm_ir::ElementGenerator& generator,
                                const llvm_ir::IrArray& result,
                                const std::shared_ptr<TransposedTile>& tile,
                                const llvm_ir::IrArray* operand, llvm::IRBuilder<>* b);

// A segmented kernel: a concatenate along the result's minor-most
// dimension, or a pad without interior padding along it, read at the
// root's own index (the root, or under elementwise ops).  Computed element
// by element it picks its source per element (a clamped read of each and a
// select), which the vectorizer can only gather; instead the innermost
// loop is split where the source changes, one loop per segment reading its
// operand directly, contiguous, or the padding value (two [1024,1000] f32
// operands into [1024,2000]: 0.45 -> 0.069 ms, XLA 0.071; a [2048,2000]
// pad by 3 rows and 5 columns each side: 1.57 -> 0.25 ms, XLA 0.59).  Up to
// kMaxSegments operands (each loop is a copy of the kernel's body).
constexpr int64_t kMaxSegments = 8;

struct SegmentPlan {
  const HloInstruction* picker = nullptr;  // the concatenate or pad
  int64_t dimension = 0;
  // Each segment's start and extent along the dimension, and the operand
  // of `picker` it reads (for a pad: 0 inside, 1 the padding value).
  std::vector<int64_t> offsets;
  std::vector<int64_t> sizes;
  std::vector<int64_t> sources;
};

std::optional<SegmentPlan> PlanSegmentedKernel(const HloInstruction& root,
                                               const Shape& root_shape);

// The picker's generator: while `segment` is a segment's number, it reads
// that segment's source directly; otherwise (-1), `whole`.
llvm_ir::ElementGenerator MakeSegmentGenerator(const SegmentPlan& plan,
                                               llvm_ir::ElementGenerator whole,
                                               std::vector<llvm_ir::ElementGenerator> operands,
                                               std::shared_ptr<const int64_t> segment,
                                               llvm::IRBuilder<>* b);

// A scanning kernel: a reduce-window that folds, per element, every element
// up to it along one dimension (a prefix scan: jnp.cumsum, cumprod,
// cummax), or every element from it to the end (a suffix scan: lax.cumsum
// with reverse=True), read once per element at the root's index.  Computed
// as a window per element it costs the dimension's length per element (a
// 1024x1024 cumsum along rows ran 634 ms, a reversed one 789 ms); instead
// each element folds its input into the running value of the element
// before it in the scan's order, kept in an accumulator per position of the
// dimensions inside the scanned one (in the result's layout).  A prefix
// scan's loops run along the dimension in order: the same folds, in the
// same order, as the evaluator's.  A suffix scan's run from the end, so its
// folds come in the reverse of the evaluator's order: planned only for a
// reducer that is commutative and associative (max, min, integer and
// logical ops; float sums and products only where the options let float
// reductions be reordered).  A kernel scanning its major-most dimension
// runs on one thread (its range is not split).  More positions than
// kMaxScanAccumulators (a cumsum along the rows of a [256,32768] array)
// would not fit the stack: where the scan is the result itself, the
// running value is read back from the result's element before instead.
constexpr int64_t kMaxScanAccumulators = 16384;

struct ScanPlan {
  const HloInstruction* reduce_window = nullptr;
  int64_t dimension = 0;
  // A suffix scan: the loop along `dimension` runs from its end.
  bool reverse = false;
  // An accumulator's position: the index times these strides (0 for the
  // scanned dimension and those outside it).
  std::vector<int64_t> inner_strides;
  int64_t accumulators = 1;
  // No accumulators: the running value is the result's element before.
  bool reads_result = false;
};

std::optional<ScanPlan> PlanScanKernel(const HloInstruction& root, const Shape& root_shape,
                                       bool reorder_floats);

// The scanning reduce-window's generator (scan_kernels.cc); `result` is the
// kernel's result, in the loops' shape (read where the plan reads_result).
absl::StatusOr<llvm_ir::ElementGenerator> MakeScanGenerator(const ScanPlan& plan,
                                                            const llvm_ir::GeneratorMap& generators,
                                                            const llvm_ir::IrArray& result,
                                                            llvm_ir::ElementalIrEmitter* emitter,
                                                            llvm::IRBuilder<>* b);

// The entry of a partitioned kernel, `void name(ptr buffers, i64 begin,
// i64 end)`, added to `module` with its (empty) "entry" block.
llvm::Function* CreateKernelEntry(llvm::Module* module, absl::string_view name);
// Buffer `i` of an entry's table of buffer pointers (its first argument).
llvm::Value* LoadKernelBuffer(llvm::Function* entry, int64_t i, llvm::IRBuilder<>* b,
                              absl::string_view name = "");

// How a kernel computes transcendental functions.
enum class KernelMath {
  kLibrary,   // the C library's functions
  kInline,    // polynomial_math.h's polynomials, inlined (but those that look up
              // tables call their routines: PolynomialLooksUpTables)
  kRoutines,  // calls of math_library.h's routines of those polynomials
};

// The elemental emitter for `math`.
std::unique_ptr<llvm_ir::ElementalIrEmitter> MakeEmitter(KernelMath math, llvm::Module* module,
                                                         llvm::IRBuilder<>* b);

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_LOOP_KERNEL_INTERNAL_H_
