// TileLoop: a run of a tile kernel's steps (tile_kernel.h) compiled to one
// AVX-512 loop of machine code, generated directly with Xbyak in
// microseconds (no LLVM): 64 elements per iteration pass through every
// step while they are in registers and L1, instead of each step sweeping
// the whole tile before the next starts.  The interpreted steps are
// memory-bound passes over a tile that serialize the loads and the math;
// the loop overlaps them as a JIT kernel's loop does.
//
// Each element's result is the interpreted step's, bit for bit: the same
// IEEE instructions, tile_ops.h's maximum/minimum, rounding and sign
// sequences, the math routines' array form (the same polynomial), and
// reductions folded into the same lanes in the same order
// (tile_ops::CombineLanes finishes them).
#ifndef TESSERA_BACKENDS_CPU_TILE_LOOP_H_
#define TESSERA_BACKENDS_CPU_TILE_LOOP_H_

#include <cstdint>
#include <memory>
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
  // For kReduce: lanes 32 or 64, from the scalar values[init_value].
  tile_ops::Reduction reduction{};
  int init_value = -1;
  // For kMath: the function's routine of 64 lanes
  // (llvm_ir::MathRoutineName(function, false, 64)): <64 x float> in and
  // out of zmm0..3, as LLVM passes it with AVX-512.
  void* vector_routine = nullptr;
  // Also written to values[value].tile (a tile of n elements the caller
  // provides): read after the loop, or the result.
  bool store = false;
  // Stored with non-temporal stores (whole vectors; the tile 64-byte
  // aligned): a result larger than the caches.  The caller fences.
  bool streaming = false;
};

class TileLoop {
 public:
  // The most lanes of a loop's reduces together (they live in registers).
  static constexpr int64_t kMaxLanes = 128;

  // Whether this host runs the generated code (AVX-512 F and BMI2).
  static bool Supported();

  // Steps in order, each operand of kind kLoop an earlier non-reduce step.
  // ResourceExhausted where more values are live at once than the vector
  // registers hold.
  static absl::StatusOr<std::unique_ptr<TileLoop>> Compile(std::vector<TileLoopStep> steps);
  ~TileLoop();

  // Runs the steps over elements [0, n): stored steps write
  // values[step.value].tile, reduces values[step.value].scalar.  Reentrant:
  // threads may run one loop at once with values of their own.
  void Run(TileValue* values, int64_t n) const { function_(values, n); }

 private:
  class Generator;
  using Function = void (*)(TileValue* values, int64_t n);
  TileLoop() = default;

  std::unique_ptr<Generator> generator_;  // owns the code
  Function function_ = nullptr;
};

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_TILE_LOOP_H_
