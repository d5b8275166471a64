// TileCode: a tile kernel's program (tile_kernel.h) for one tile, or for
// each of a range of whole rows in turn, compiled to one function of
// AVX-512 machine code, generated directly with Xbyak in microseconds (no
// LLVM).  Its runs of elementwise steps, and the
// reduces they feed, are loops: 64 elements per iteration pass through
// every step while they are in registers and L1, instead of each step
// sweeping the whole tile before the next starts.  The steps done once per
// tile (a parameter's tile or element, constants, arithmetic on per-row
// values) are straight-line code between the loops.
//
// Each element's result is the interpreted program's, bit for bit: the
// same IEEE instructions, tile_ops.h's maximum/minimum, rounding and sign
// sequences, the math routines (the same polynomial), and reductions
// folded into the same lanes in the same order and combined as
// tile_ops::Reduce combines them.
#ifndef TESSERA_BACKENDS_CPU_TILE_CODE_H_
#define TESSERA_BACKENDS_CPU_TILE_CODE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/cpu/tile_ops.h"

namespace tessera {
namespace cpu {

// A tile kernel step's value while a tile runs: a full value's tile
// (elements [0, n) of the tile), or a scalar (also a per-row value).
struct TileValue {
  const float* tile = nullptr;
  float scalar = 0;
};

// A step of a loop: per element of the tile.
struct TileLoopStep {
  enum class Op : uint8_t { kBinary, kUnary, kMath, kCompare, kSelect, kReduce };
  // Where an operand comes from: an earlier step of the loop, a tile
  // (values[value].tile), or a scalar broadcast (values[value].scalar).
  enum class Source : uint8_t { kLoop, kTile, kScalar };
  struct Operand {
    Source source = Source::kScalar;
    int value = -1;
  };
  Op op = Op::kBinary;
  // The step's index in the values array (and, for kLoop operands, the
  // name later steps use for it).
  int value = -1;
  // Binary and compare: 2; unary, math and reduce: 1; select: 3 (the
  // predicate, on true, on false).
  std::vector<Operand> operands;
  tile_ops::BinaryOp binary = tile_ops::BinaryOp::kAdd;
  tile_ops::UnaryOp unary = tile_ops::UnaryOp::kNegate;
  tile_ops::CompareOp compare = tile_ops::CompareOp::kEq;
  // For kReduce: lanes 16, 32 or 64, from the scalar values[init_value].
  tile_ops::Reduction reduction{};
  int init_value = -1;
  // For kMath: the function's routine of 64 lanes
  // (llvm_ir::MathRoutineName(function, false, 64)): <64 x float> in and
  // out of zmm0..3, as LLVM passes it with AVX-512.
  void* vector_routine = nullptr;
  // Also written to values[value].tile (a tile of n elements the caller
  // provides, or a kRowTile step sets): read after the loop, or the result.
  bool store = false;
  // Stored with non-temporal stores (whole vectors; the tile 64-byte
  // aligned): a result larger than the caches.  The caller fences.
  bool streaming = false;
};

// A step done once per tile, on values[].
struct TileScalarStep {
  enum class Op : uint8_t {
    kRowTile,       // .tile = buffers[parameter] + row * row_length + start
    kColumnTile,    // .tile = buffers[parameter] + start
    kRowElement,    // .scalar = buffers[parameter][row]
    kFirstElement,  // .scalar = buffers[parameter][0]
    kConstant,      // .scalar = constant
    kBinary,        // .scalar = operands' scalars op'd, as a loop step's lanes
    kUnary,
    kCompare,
    kSelect,
    kMath,  // .scalar = routine(operand's scalar)
    // buffers[parameter][row] = the operand's scalar (a per-row result).
    kStoreRowElement,
  };
  Op op = Op::kConstant;
  int value = -1;
  int parameter = -1;
  float constant = 0;
  std::vector<int> operands;  // values' indices
  tile_ops::BinaryOp binary = tile_ops::BinaryOp::kAdd;
  tile_ops::UnaryOp unary = tile_ops::UnaryOp::kNegate;
  tile_ops::CompareOp compare = tile_ops::CompareOp::kEq;
  float (*routine)(float) = nullptr;
  // kRowTile, kRowElement, kStoreRowElement: of row + row_offset (a later
  // row's copy of the items, InterleaveRows).
  int row_offset = 0;
};

// One loop, or one step done once.
struct TileCodeItem {
  std::vector<TileLoopStep> loop;
  std::optional<TileScalarStep> step;
};

// `items` (over values [0, value_count) of one row) for `rows` consecutive
// rows at once: each item once per row, row after row, before the next
// item; row j's copy uses values [j * value_count, (j + 1) * value_count)
// and reads and writes row + j.  Each row's work is a chain of dependent
// steps (a softmax's maximum, its exp and sum, the sum's reciprocal...);
// short rows' chains, one after another, leave the core waiting on each
// step's latency, while several rows' side by side overlap.  Compile the
// result with rows_per_pass = rows.
std::vector<TileCodeItem> InterleaveRows(const std::vector<TileCodeItem>& items, int value_count,
                                         int rows);

class TileCode {
 public:
  // The most lanes of a loop's reduces together (they live in registers).
  static constexpr int64_t kMaxLanes = 128;

  // Whether this host runs the generated code (AVX-512 F and DQ, and BMI2).
  static bool Supported();

  // The items in order; a loop's kLoop operands are its earlier non-reduce
  // steps.  ResourceExhausted where a loop has more values live at once
  // than the vector registers hold.  `row_length` scales kRowTile's row.
  // The items run once per `rows_per_pass` rows (InterleaveRows' items):
  // RunRows's rows must then be a multiple of it.
  static absl::StatusOr<std::unique_ptr<TileCode>> Compile(std::vector<TileCodeItem> items,
                                                           int64_t row_length,
                                                           int rows_per_pass = 1);
  ~TileCode();

  // Runs the items over elements [0, n) of the tile at `start` in row
  // `row`: loops' stored steps write values[step.value].tile, reduces
  // values[step.value].scalar.  Reentrant: threads may run one TileCode
  // at once with values of their own.
  void Run(TileValue* values, int64_t n, void* const* buffers, int64_t row, int64_t start) const {
    function_(values, n, buffers, row, start, row + 1);
  }
  // Run over elements [0, n) of the tile at `start` of each row in [row,
  // row_end), in order, in one call (no per-row call: a JIT kernel's row
  // loop); rows_per_pass rows at a time, so row_end - row a multiple of it.
  void RunRows(TileValue* values, int64_t n, void* const* buffers, int64_t row, int64_t row_end,
               int64_t start) const {
    if (row < row_end) function_(values, n, buffers, row, start, row_end);
  }

 private:
  class Generator;
  using Function = void (*)(TileValue* values, int64_t n, void* const* buffers, int64_t row,
                            int64_t start, int64_t row_end);
  TileCode() = default;

  std::unique_ptr<Generator> generator_;  // owns the code
  Function function_ = nullptr;
};

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_TILE_CODE_H_
