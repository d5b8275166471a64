// TileKernel: the CPU backend's baseline tier.  A loop or row-reduction
// fusion over f32 runs as a short program of tile operations, built from
// the fused computation in microseconds, with no LLVM: each step runs one
// precompiled loop (tile_ops.h, or a math routine over an array,
// llvm_ir/math_library.h) over a tile of a row held in cache, or, on
// AVX-512 hosts, the whole program as code generated for it (below).
//
// Why: a fusion's LLVM compile is milliseconds (a softmax row kernel: 10
// ms, 60% of it instruction selection and register allocation), and for
// the memory-bound fusions the tier takes (softmax, layer norm, elementwise
// chains) a kernel's run time is the memory's, not the code's.
//
// Where the host has AVX-512 (TileKernelOptions::compile_loops), a tile's
// whole program runs as one function of machine code instead (tile_code.h,
// generated in microseconds with no LLVM): runs of elementwise steps, and
// the reduces they feed, as loops of 64 elements at a time through every
// step of the run, the steps done once per tile between them, and whole
// rows in the code's own row loop.  A column reduction is three such
// programs: its first row (folding into the init value), the other rows
// (into the accumulators' tile), and the steps after the fold.
// Measured on this machine's AMD EPYC (tessera bench --kernels=tile |
// tile_ops | llvm, 2 threads, fastest of alternating runs): elementwise
// chain 16M 2.3 | 4.8 | 2.4 ms, layer norm 4096x1024 0.38 | 1.04 | 0.43
// ms, softmax 4096x1024 0.60 | 1.16 | 0.58 ms (its exp a call per 64
// elements, inline in LLVM's).
//
// Results are the JIT kernel's, element for element: the same IEEE
// operations, the elemental emitter's maximum/minimum, the same math
// routines, and reductions folded in the reduce emitter's lane order.
//
// What the tier takes (Create says Unimplemented, naming why, otherwise):
// f32 only; with the "full" shape the root's (or, for a reduce root, its
// operand's; for a root with one value per row of a reduce's operand, an
// epilogue on its rows' reductions or a scalar from a rank-1 reduction,
// that operand's) dims, row-major, split into rows of its last dimension E
// (shapes are compared up to dimensions of size 1, which bitcasts and
// reshapes between them add or drop without moving elements):
// - parameters of the full shape (read row by row), of the leading dims
//   (one value per row), scalars, and rank-1 parameters of E read only
//   through broadcasts along the last dimension, directly or through
//   elementwise ops (columns: a bias, a scale);
// - scalar constants; broadcasts of scalars and of per-row values;
// - add, subtract, multiply, divide, maximum, minimum, clamp, negate, abs,
//   sqrt, rsqrt, floor, ceil, both round-nearest ops, sign, and the
//   one-argument functions with a math routine (exp, log, tanh, logistic,
//   erf, ...);
// - float compares (not total order), and, or and not of their results,
//   converts between f32 and predicates, and select (predicates are 1 and 0
//   in tiles; none is a parameter or the result);
// - reduces of a full value over its last dimension with a reducer of one
//   add, multiply, maximum or minimum of its parameters (the row's result
//   is then a per-row value, read back through broadcasts: softmax);
//   E at most kMaxReducedRow;
// - or one reduce over all but the last dimension (a column reduction:
//   [R, E] -> [E], a bias gradient), folded row by row into accumulators
//   per column as the JIT's column kernels fold it, then elementwise ops on
//   its result, columns and scalars (the bias's update).
// Rows are cut into tiles of kTileElements where nothing is reduced.
// Steps that compute the same value from the same steps are one step.
//
// The CPU compiler uses the tier as CpuCompileOptions::kernel_tier says:
// by default (kTiered) until the same fusions' LLVM kernels exist, which a
// tiered kernel's second execution asks for (generated on a background
// thread by default: CpuCompileOptions::tier_up), or for good where its
// generated code is final (CpuCompileOptions::final_tile_code).
#ifndef TESSERA_BACKENDS_CPU_TILE_KERNEL_H_
#define TESSERA_BACKENDS_CPU_TILE_KERNEL_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/cpu/tile_code.h"
#include "backends/cpu/tile_ops.h"
#include "backends/llvm_ir/llvm_jit.h"
#include "hlo/ir/hlo_computation.h"

namespace tessera {
namespace cpu {

struct TileKernelOptions {
  // As LoopKernelOptions::reorder_float_reductions (the JIT kernel's order).
  bool reorder_float_reductions = true;
  // The target the math routines are compiled for: the JIT's options with
  // its actual CPU and features, so that they are the kernels' own.
  llvm_ir::JitOptions math_target;
  // A result of whole rows of at least this many bytes is written with
  // non-temporal stores, as the JIT kernels write theirs
  // (LoopKernelOptions::streaming_store_bytes); unset: the host's
  // threshold, llvm_ir::StreamingStoreThresholdBytes().
  std::optional<int64_t> streaming_store_bytes;
  // A tile's program runs as generated machine code (tile_code.h) where
  // the host has AVX-512 and every step has code; otherwise every step
  // runs as a tile operation.
  bool compile_loops = true;
};

class TileKernel {
 public:
  // Rows of this many elements or fewer are reduced in one tile.
  static constexpr int64_t kMaxReducedRow = 32 * 1024;
  // Tile length where nothing is reduced.
  static constexpr int64_t kTileElements = 2048;

  static absl::StatusOr<std::unique_ptr<TileKernel>> Create(const HloComputation& computation,
                                                            const TileKernelOptions& options);

  // Work units [begin, end) of work_size() (row tiles): buffers[0..n-1] are
  // the parameters, buffers[n] the result (LoopKernel's convention).  Safe
  // to call on disjoint ranges at once.
  void Run(void** buffers, int64_t begin, int64_t end) const;
  // (A column reduction's units are its columns.)
  int64_t work_size() const { return fold_ >= 0 ? major_size_ : rows_ * tiles_per_row_; }

  // The same work counted as the JIT kernel of the same fusion counts it
  // (LoopKernel::work_size: the result's dimension 0, 1 for a scalar), so
  // that a tiered thunk splits it one way for both: Run over the results
  // at positions [begin, end) of dimension 0.
  int64_t major_size() const { return major_size_; }
  // Whether RunMajor can run any such range: false only for a rank-1
  // result computed from reductions of itself (one row, not splittable).
  bool splits_by_major() const {
    return major_is_row_ || fold_ >= 0 || major_size_ == 0 || rows_ % major_size_ == 0;
  }
  void RunMajor(void** buffers, int64_t begin, int64_t end) const;
  // Splits RunMajor's units along the first dimension of the result
  // longer than 1, where the ones before it all have extent 1 and it is
  // not the last (as a JIT kernel splits past unit dimensions: SplitLoop in
  // loop_kernel.cc), when that dimension's extent is `work_size`.  True
  // when major_size() is then `work_size`.
  bool SplitAs(int64_t work_size);
  // Whether the result is written with non-temporal stores.
  bool streaming() const { return streaming_; }
  // How many loops the generated code (TileKernelOptions::compile_loops)
  // runs: 0 where the steps run as tile operations.
  int compiled_loops() const { return compiled_loops_; }
  // Whether every tile runs as one function of generated code (no tile
  // operations), and the tiles' length (a reducing kernel's rows).
  bool runs_generated_code() const { return code_ != nullptr; }
  int64_t tile_length() const { return tile_length_; }
  // Whether the generated code runs several short rows that reduce at once
  // (kInterleavedRows, rows of at most kInterleavedRowLength elements).
  bool interleaves_rows() const { return interleaved_code_ != nullptr; }
  // Whether a full value passes through a math routine (exp, tanh, ...).
  bool calls_math_routines() const;

 private:
  enum class Kind : uint8_t { kScalar, kRow, kFull };
  enum class StepOp : uint8_t {
    kParameter,  // full: the row's tile; row: element [row]; scalar: [0]
    kColumn,     // a rank-1 parameter along the last dimension
    kConstant,
    kBinary,
    kUnary,
    kMath,     // a math routine (array form for full values, scalar otherwise)
    kReduce,   // a full value's row to a per-row value
    kCompare,  // a predicate: 1 or 0
    kSelect,   // operands: predicate, on true, on false
    kFold,     // a column reduction's accumulators: a full value folded in per row
  };
  struct Step {
    StepOp op;
    Kind kind;
    int parameter = -1;
    int operands[3] = {-1, -1, -1};
    float constant = 0;
    tile_ops::BinaryOp binary = tile_ops::BinaryOp::kAdd;
    tile_ops::UnaryOp unary = tile_ops::UnaryOp::kNegate;
    tile_ops::CompareOp compare = tile_ops::CompareOp::kEq;
    tile_ops::Reduction reduction{};
    int math_function = -1;                    // an llvm_ir::MathFunction, for kMath
    void* array_routine = nullptr;             // UnaryArrayRoutine
    void* vector_routine = nullptr;            // of 64 lanes, for TileCode
    float (*scalar_routine)(float) = nullptr;  // the scalar routine
    int slot = -1;  // full values computed here: their tile in the scratch
  };
  // Elements [start, start + n) of row `row`.
  struct TileRange {
    int64_t row, start, n;
  };
  using Value = TileValue;
  TileKernel() = default;
  // A reduce's step of `op` and `kind` with its reducer's operation and
  // operand order; Unimplemented for other reducers.
  static absl::StatusOr<Step> ReducerStep(const HloInstruction& reduce, StepOp op, Kind kind);
  void RunTiles(void** buffers, const std::vector<TileRange>& tiles) const;
  // A column reduction over columns [begin, end): per tile of columns, the
  // steps up to the fold for each row, then the rest once.
  void RunColumns(void** buffers, int64_t begin, int64_t end) const;
  // Steps [first, last) over `tile`, their values in `values`, the full
  // ones computed into `scratch` (slots of tile_length_).
  void RunSteps(int first, int last, void** buffers, const TileRange& tile, Value* values,
                float* scratch) const;
  // Compiles the program (code_, streaming_code_, stored_; a column
  // reduction's also first_row_code_ and epilogue_code_).  Unimplemented
  // where a step has no code (a serial reduce); ResourceExhausted where a
  // loop needs more registers than the host has.
  absl::Status CompileCode();
  // The program of steps [first, last) (a column reduction's row steps,
  // with the fold's accumulators from the init value at the `first_row`,
  // or its epilogue); adds to stored_ and compiled_loops_.
  absl::StatusOr<std::vector<TileCodeItem>> ProgramItems(int first, int last, bool first_row);
  // Step i as a step of loop `loop` (loop_of: each step's loop, or -1).
  absl::StatusOr<TileLoopStep> LoopStepOf(int i, int loop, const std::vector<int>& loop_of,
                                          bool first_row) const;
  // Step i, not a loop's, as a step done once per tile.
  absl::StatusOr<TileScalarStep> ScalarStepOf(int i) const;
  // The tiles of `tiles` through code_ (or streaming_code_).
  void RunCode(void** buffers, const std::vector<TileRange>& tiles, Value* values,
               float* scratch) const;
  // The tile a full step computed here writes: the result's, or its
  // scratch slot.
  float* TileOf(int step, void** buffers, const TileRange& tile, float* scratch) const;
  // Rows [begin, end) whole (tiles_per_row_ == 1) through the generated
  // code's row loop.
  void RunCodeRows(void** buffers, int64_t begin, int64_t end) const;
  // The scratch: slots_ tiles (per copy of the values: interleaved rows'),
  // 64-byte aligned, SlotStride() floats apart.
  struct AlignedDelete {
    void operator()(float* p) const;
  };
  std::unique_ptr<float[], AlignedDelete> NewScratch(int copies = 1) const;
  int64_t SlotStride() const { return (tile_length_ + 15) / 16 * 16; }

  std::vector<Step> steps_;
  int root_ = -1;
  int slots_ = 0;
  int parameter_count_ = 0;
  int64_t rows_ = 1;
  int64_t row_length_ = 1;  // E
  int64_t tile_length_ = 1;
  int64_t tiles_per_row_ = 1;
  int64_t major_size_ = 1;
  std::vector<int64_t> dimensions_;  // the result's
  // Rank-1 results without reductions: dimension 0 is the row itself.
  bool major_is_row_ = false;
  // The root is computed into a scratch tile (slot root_slot_) and stored
  // with non-temporal stores.
  bool streaming_ = false;
  std::vector<int> full_parameters_;  // read a tile of a row each
  int root_slot_ = -1;
  // A column reduction's kFold step (the result is then [E], per column).
  int fold_ = -1;
  // The generated program; for a streaming result computed in a loop, also
  // one storing it straight to the result with non-temporal stores, for
  // tiles of the result that are 64-byte aligned (code_ stores it to its
  // scratch tile).
  std::unique_ptr<TileCode> code_;
  std::unique_ptr<TileCode> streaming_code_;
  // Rows of at most kInterleavedRowLength elements that reduce: code_ and
  // streaming_code_ for kInterleavedRows rows at a time (InterleaveRows),
  // over the rows up to a multiple of that (code_ and streaming_code_ run
  // the rest).  Null for longer rows.
  static constexpr int64_t kInterleavedRowLength = 128;
  static constexpr int kInterleavedRows = 4;
  std::unique_ptr<TileCode> interleaved_code_;
  std::unique_ptr<TileCode> interleaved_streaming_code_;
  // A column reduction's: code_ runs its row steps for the rows after the
  // first, first_row_code_ for the first (from the init value), and
  // epilogue_code_ the steps after the fold (null where there are none).
  std::unique_ptr<TileCode> first_row_code_;
  std::unique_ptr<TileCode> epilogue_code_;
  // The steps other than the result that code_'s loops write to tiles.
  std::vector<int> stored_;
  int compiled_loops_ = 0;
};

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_TILE_KERNEL_H_
