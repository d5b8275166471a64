// TileCode: a tile program as one function of AVX-512 code; see tile_code.h.
#include "backends/cpu/tile_code.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "xbyak/xbyak.h"

namespace tessera {
namespace cpu {

static_assert(offsetof(TileValue, tile) == 0 && offsetof(TileValue, scalar) == 8 &&
                  sizeof(TileValue) == 16,
              "the generated code addresses TileValue's fields at these offsets");

namespace {

using Op = TileLoopStep::Op;
using Source = TileLoopStep::Source;
using tile_ops::BinaryOp;
using tile_ops::CompareOp;
using tile_ops::UnaryOp;

// vcmpps predicates.
constexpr uint8_t kCmpEqOq = 0x00;
constexpr uint8_t kCmpUnordQ = 0x03;
constexpr uint8_t kCmpNeqUq = 0x04;
constexpr uint8_t kCmpNeqOq = 0x0C;
constexpr uint8_t kCmpLtOq = 0x11;
constexpr uint8_t kCmpLeOq = 0x12;
constexpr uint8_t kCmpGeOq = 0x1D;
constexpr uint8_t kCmpGtOq = 0x1E;

// vrndscaleps modes (rounding, precision exception suppressed).
constexpr uint8_t kRoundEven = 0x08;
constexpr uint8_t kRoundDown = 0x09;
constexpr uint8_t kRoundUp = 0x0A;
constexpr uint8_t kRoundTruncate = 0x0B;

constexpr uint32_t kSignBit = 0x80000000u;
constexpr uint32_t kOne = 0x3F800000u;   // 1.0f
constexpr uint32_t kHalf = 0x3F000000u;  // 0.5f

// Vectors of 16 per iteration: four, a 64-lane reduce's group and a
// 64-lane math routine's argument.
constexpr int kVectors = 4;

uint8_t ComparePredicate(CompareOp op) {
  switch (op) {
    case CompareOp::kEq:
      return kCmpEqOq;
    case CompareOp::kNe:
      return kCmpNeqUq;  // true where either is NaN, as a != b
    case CompareOp::kGe:
      return kCmpGeOq;
    case CompareOp::kGt:
      return kCmpGtOq;
    case CompareOp::kLe:
      return kCmpLeOq;
    case CompareOp::kLt:
      return kCmpLtOq;
  }
  return kCmpEqOq;
}

uint32_t Identity(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return kSignBit;  // -0
    case BinaryOp::kMultiply:
      return kOne;
    case BinaryOp::kMaximum:
      return 0xFF800000u;  // -inf
    case BinaryOp::kMinimum:
      return 0x7F800000u;  // +inf
    default:
      return 0;
  }
}

}  // namespace

// The code runs the items in order, once per row of [row, row_end) (per
// rows_per_pass rows, for InterleaveRows' items, which say each step's row): a
// step done once is straight-line code on values[] (Run's buffers, row,
// start and row_end kept in the frame at [rsp + 16, rsp + 48)); a loop is
// emitted as follows.  Registers: rbx = values, r12 = n, r14 = the
// iteration's first element.  The main loop runs whole iterations without
// masks; the last, partial one masks each vector's loads, stores and folds
// with k1 (the frame's masks at [rsp, rsp + 8)).
//
// A loop's steps fall into phases, cut at the math steps: a phase runs
// its steps vector by vector, every value in a register (zmm0, zmm4, zmm5,
// zmm16 up to the scalars'), freed after its last reader in the phase.  A
// math step calls its routine on the iteration's 64 elements in zmm0..3.
// Its operand, where the phase computes it, is computed into four pinned
// registers (Q_j), and its result, where the next phase reads it, is kept
// in four more (R_j); both come off the top of the value registers.  The
// values a later phase reads, and routine operands from elsewhere, go to
// temporaries of the 64-byte aligned frame (from rsp + 64), since a call
// clobbers every vector register.  Invariants stay in registers, loaded
// again after a call: constants in zmm28..31 (where a step reads them),
// scalar operands from zmm27 down.  The reduces' lanes live in zmm8..15
// (saved in the frame across calls), combined after the loop.  zmm1..3
// stage operands loaded from memory; zmm6, zmm7, k2 and k3 are scratch;
// k4..k7 hold the NaNs seen by max and min reduces in loops without calls.
// The first six tiles' addresses stay in r8..r11, r13 and r15 (reloaded
// after a call too).
class TileCode::Generator : public Xbyak::CodeGenerator {
 public:
  // Thrown where a phase holds more values at once than there are value
  // registers (the values are not spilled).
  struct OutOfRegisters {};

  // `pin`: keep math steps' operands and results in registers where the
  // registers suffice (else OutOfRegisters; the caller tries again without).
  Generator(const std::vector<TileCodeItem>& items, int64_t row_length, int rows_per_pass, bool pin)
      : Xbyak::CodeGenerator(4096, Xbyak::AutoGrow),
        row_length_(row_length),
        rows_per_pass_(rows_per_pass),
        pin_(pin) {
    for (const TileCodeItem& item : items) {
      max_loop_steps_ = std::max(max_loop_steps_, static_cast<int>(item.loop.size()));
    }
    Emit(items);
    // Executable, no longer writable.
    readyRE();
  }

 private:
  using Zmm = Xbyak::Zmm;
  static constexpr size_t kScalarRegisters = 8;
  static constexpr int kFirstLaneRegister = 8;
  static constexpr int kLaneRegisters = TileCode::kMaxLanes / 16;
  const Zmm half_{28};
  const Zmm one_{29};
  const Zmm magnitude_bits_{30};
  const Zmm sign_bit_{31};
  // The frame's slots for Run's buffers, row and start.
  static constexpr int kBuffersSlot = 16;
  static constexpr int kRowSlot = 24;
  static constexpr int kStartSlot = 32;
  static constexpr int kRowEndSlot = 40;

  // The loop about to be emitted: its steps' phases, temporaries and
  // registers.
  void PrepareLoop(const std::vector<TileLoopStep>& steps) {
    steps_ = steps;
    index_of_.clear();
    scalar_register_.clear();
    pointer_register_.clear();
    first_lanes_.clear();
    pool_.clear();
    const int count = static_cast<int>(steps_.size());
    int lane_vectors = 0;
    int phase = 0;
    phase_of_.assign(count, 0);
    for (int s = 0; s < count; ++s) {
      const TileLoopStep& step = steps_[s];
      index_of_[step.value] = s;
      if (step.op == Op::kReduce) {
        first_lanes_.push_back(kFirstLaneRegister + lane_vectors);
        lane_vectors += static_cast<int>(step.reduction.lanes / 16);
      }
      if (step.store) AssignPointerRegister(step.value);
      for (const TileLoopStep::Operand& operand : step.operands) {
        if (operand.source == Source::kTile) AssignPointerRegister(operand.value);
        if (operand.source == Source::kScalar && !scalar_register_.contains(operand.value) &&
            scalar_register_.size() < kScalarRegisters) {
          const int index = static_cast<int>(scalar_register_.size());
          scalar_register_[operand.value] = 27 - index;
        }
      }
      // A math step's result is read from its temporary by the next phase.
      phase_of_[s] = phase;
      if (step.op == Op::kMath) ++phase;
    }
    phases_ = phase + 1;
    // Max and min reduces of a loop without calls (which clobber every mask
    // register) fold with vrange and keep whether a NaN went by in a mask
    // register of their own (RangeFold).
    nan_mask_of_.assign(count, -1);
    if (std::none_of(steps_.begin(), steps_.end(),
                     [](const TileLoopStep& step) { return step.op == Op::kMath; })) {
      int next_mask = kFirstNanMask;
      for (int s = 0; s < count && next_mask < 8; ++s) {
        const TileLoopStep& step = steps_[s];
        if (step.op == Op::kReduce &&
            (step.reduction.op == BinaryOp::kMaximum || step.reduction.op == BinaryOp::kMinimum)) {
          nan_mask_of_[s] = next_mask++;
        }
      }
    }
    // Which values go to temporaries (read by a later phase or a routine),
    // which stay pinned in registers across a phase boundary, and each
    // one's last reader in its phase.
    in_temp_.assign(count, false);
    last_reader_.assign(count, -1);
    result_pinned_.assign(count, false);
    operand_pinned_.assign(count, false);
    feeds_pinned_operand_.assign(count, false);
    needs_constants_ = false;
    for (int s = 0; s < count; ++s) {
      const TileLoopStep& step = steps_[s];
      needs_constants_ |= step.op == Op::kUnary || step.op == Op::kCompare;
      for (const TileLoopStep::Operand& operand : step.operands) {
        if (operand.source != Source::kLoop) continue;
        const int producer = index_of_.at(operand.value);
        const bool producer_is_math = steps_[producer].op == Op::kMath;
        if (pin_ && producer_is_math && phase_of_[s] == phase_of_[producer] + 1) {
          result_pinned_[producer] = true;
        } else if (pin_ && step.op == Op::kMath && !producer_is_math &&
                   phase_of_[producer] == phase_of_[s]) {
          operand_pinned_[s] = true;
          feeds_pinned_operand_[producer] = true;
        } else if (step.op == Op::kMath || phase_of_[producer] != phase_of_[s] ||
                   producer_is_math) {
          in_temp_[producer] = true;
        } else {
          last_reader_[producer] = s;
        }
      }
    }
    for (int r = 0; r < 3; ++r) pool_.push_back(r == 0 ? 0 : r + 3);  // zmm0, zmm4, zmm5
    for (int r = 16; r < 28 - static_cast<int>(scalar_register_.size()); ++r) pool_.push_back(r);
    // The pinned registers come off the top of the pool: results' R_j,
    // then operands' Q_j; a phase's pool leaves out those it uses.
    if (pin_ && pool_.size() > 2 * kVectors) {
      for (int j = 0; j < kVectors; ++j) {
        result_register_[j] = pool_[pool_.size() - 1 - j];
        operand_register_[j] = pool_[pool_.size() - 1 - kVectors - j];
      }
    } else if (std::find(result_pinned_.begin(), result_pinned_.end(), true) !=
                   result_pinned_.end() ||
               std::find(operand_pinned_.begin(), operand_pinned_.end(), true) !=
                   operand_pinned_.end()) {
      throw OutOfRegisters();
    }
  }

  // Phase `phase`'s value registers: the pool less the registers pinned
  // during it (the results of the math step before it, the operand of the
  // one that ends it).
  std::vector<int> PhasePool(int phase) const {
    std::vector<int> pool = pool_;
    auto drop = [&pool](const std::array<int, kVectors>& registers) {
      for (int r : registers) pool.erase(std::remove(pool.begin(), pool.end(), r), pool.end());
    };
    for (int s = 0; s < static_cast<int>(steps_.size()); ++s) {
      if (steps_[s].op != Op::kMath) continue;
      if (phase_of_[s] + 1 == phase && result_pinned_[s]) drop(result_register_);
      if (phase_of_[s] == phase && operand_pinned_[s]) drop(operand_register_);
    }
    return pool;
  }

  void AssignPointerRegister(int value) {
    static constexpr int kPointerRegisters[] = {8, 9, 10, 11, 13, 15};
    if (pointer_register_.contains(value) || pointer_register_.size() >= 6) return;
    pointer_register_[value] = kPointerRegisters[pointer_register_.size()];
  }

  int ElementsPerIteration() const { return 16 * kVectors; }
  int TempBytes() const { return ElementsPerIteration() * 4; }
  int TempOffset(int step) const { return 64 + step * TempBytes(); }
  // One more temporary: a math routine's operand that is not a loop value.
  int ScratchOffset() const { return TempOffset(max_loop_steps_); }
  // The lane registers' place across a call.
  int LaneSaveOffset(int reg) const {
    return ScratchOffset() + TempBytes() + (reg - kFirstLaneRegister) * 64;
  }

  void Emit(const std::vector<TileCodeItem>& items) {
    using namespace Xbyak;
    const int frame = LaneSaveOffset(kFirstLaneRegister + kLaneRegisters) + 64;
    push(rbp);
    mov(rbp, rsp);
    push(rbx);
    push(r12);
    push(r13);
    push(r14);
    push(r15);
    sub(rsp, frame);
    and_(rsp, -64);
    mov(rbx, rdi);
    mov(r12, rsi);
    mov(ptr[rsp + kBuffersSlot], rdx);
    mov(ptr[rsp + kRowSlot], rcx);
    mov(ptr[rsp + kStartSlot], r8);
    mov(ptr[rsp + kRowEndSlot], r9);
    EmitMasks();
    // The rows: the items once per row (the constants loaded where a step
    // needs them, since the last row's calls may have clobbered them).
    Xbyak::Label row_loop;
    L(row_loop);
    constants_live_ = false;
    for (const TileCodeItem& item : items) {
      if (item.step.has_value()) {
        EmitScalarStep(*item.step);
      } else {
        PrepareLoop(item.loop);
        EmitLoop();
      }
    }
    mov(rax, ptr[rsp + kRowSlot]);
    add(rax, rows_per_pass_);
    mov(ptr[rsp + kRowSlot], rax);
    cmp(rax, ptr[rsp + kRowEndSlot]);
    jl(row_loop, T_NEAR);
    lea(rsp, ptr[rbp - 40]);
    pop(r15);
    pop(r14);
    pop(r13);
    pop(r12);
    pop(rbx);
    pop(rbp);
    vzeroupper();
    ret();
  }

  void EmitLoop() {
    using namespace Xbyak;
    LoadInvariants();
    int reduce = 0;
    for (const TileLoopStep& step : steps_) {
      if (step.op != Op::kReduce) continue;
      const int first = first_lanes_[reduce++];
      for (int v = 0; v < step.reduction.lanes / 16; ++v) {
        Broadcast(Zmm(first + v), Identity(step.reduction.op));
      }
    }
    for (int mask : nan_mask_of_) {
      if (mask >= 0) kxorw(Xbyak::Opmask(mask), Xbyak::Opmask(mask), Xbyak::Opmask(mask));
    }
    xor_(r14, r14);
    Label main, tail, done;
    L(main);
    lea(rax, ptr[r14 + ElementsPerIteration()]);
    cmp(rax, r12);
    jg(tail, T_NEAR);
    EmitBody(/*masked=*/false);
    add(r14, ElementsPerIteration());
    jmp(main, T_NEAR);
    L(tail);
    cmp(r14, r12);
    jge(done, T_NEAR);
    EmitBody(/*masked=*/true);
    L(done);
    reduce = 0;
    for (size_t s = 0; s < steps_.size(); ++s) {
      if (steps_[s].op != Op::kReduce) continue;
      const int first_lane = first_lanes_[reduce++];
      if (nan_mask_of_[s] >= 0) {
        // The NaNs that went by, back into the lanes for the
        // compare-select tree below to carry: as the default quiet NaN,
        // not as themselves (the lane tree keeps no NaN's payload either:
        // which of two NaNs LLVM's maximum returns is unspecified).
        Broadcast(zmm7, 0x7FC00000);
        vmovaps(Zmm(first_lane) | Xbyak::Opmask(nan_mask_of_[s]), zmm7);
      }
      CombineLanes(steps_[s], first_lane);
    }
  }

  // `reg` = the row being run + offset.
  void LoadRow(const Xbyak::Reg64& reg, int offset) {
    mov(reg, ptr[rsp + kRowSlot]);
    if (offset != 0) add(reg, offset);
  }

  // rax = buffers[parameter].
  void LoadBuffer(int parameter) {
    mov(rax, ptr[rsp + kBuffersSlot]);
    mov(rax, ptr[rax + parameter * 8]);
  }

  // A step done once: its value into values[step.value].  Arithmetic runs
  // on broadcast scalars with the loops' own sequences, lane 0 stored.
  void EmitScalarStep(const TileScalarStep& step) {
    using ScalarOp = TileScalarStep::Op;
    const Xbyak::Address tile = ptr[rbx + step.value * 16];
    const Xbyak::Address scalar = dword[rbx + step.value * 16 + 8];
    switch (step.op) {
      case ScalarOp::kRowTile:
        LoadBuffer(step.parameter);
        LoadRow(rcx, step.row_offset);
        mov(rdx, row_length_);
        imul(rcx, rdx);
        add(rcx, ptr[rsp + kStartSlot]);
        lea(rax, ptr[rax + rcx * 4]);
        mov(tile, rax);
        return;
      case ScalarOp::kColumnTile:
        LoadBuffer(step.parameter);
        mov(rcx, ptr[rsp + kStartSlot]);
        lea(rax, ptr[rax + rcx * 4]);
        mov(tile, rax);
        return;
      case ScalarOp::kRowElement:
        LoadBuffer(step.parameter);
        LoadRow(rcx, step.row_offset);
        vmovss(xmm0, dword[rax + rcx * 4]);
        vmovss(scalar, xmm0);
        return;
      case ScalarOp::kFirstElement:
        LoadBuffer(step.parameter);
        vmovss(xmm0, dword[rax]);
        vmovss(scalar, xmm0);
        return;
      case ScalarOp::kStoreRowElement:
        LoadBuffer(step.parameter);
        LoadRow(rcx, step.row_offset);
        vmovss(xmm0, dword[rbx + step.operands[0] * 16 + 8]);
        vmovss(dword[rax + rcx * 4], xmm0);
        return;
      case ScalarOp::kConstant:
        mov(scalar, __builtin_bit_cast(uint32_t, step.constant));
        return;
      case ScalarOp::kMath:
        vmovss(xmm0, dword[rbx + step.operands[0] * 16 + 8]);
        mov(rax, reinterpret_cast<uint64_t>(step.routine));
        call(rax);
        vmovss(scalar, xmm0);
        constants_live_ = false;
        return;
      case ScalarOp::kBinary:
      case ScalarOp::kUnary:
      case ScalarOp::kCompare:
      case ScalarOp::kSelect:
        break;
    }
    if (step.op == ScalarOp::kUnary || step.op == ScalarOp::kCompare) EnsureConstants();
    Zmm in[3] = {zmm1, zmm2, zmm3};
    for (size_t o = 0; o < step.operands.size(); ++o) {
      vbroadcastss(in[o], dword[rbx + step.operands[o] * 16 + 8]);
    }
    if (step.op == ScalarOp::kBinary) {
      Binary(step.binary, zmm0, in[0], in[1]);
    } else if (step.op == ScalarOp::kUnary) {
      Unary(step.unary, zmm0, in[0]);
    } else if (step.op == ScalarOp::kCompare) {
      Compare(step.compare, zmm0, in[0], in[1]);
    } else {
      Select(zmm0, in[0], in[1], in[2]);
    }
    vmovss(scalar, xmm0);
  }

  // The constants' registers, loaded again where a call clobbered them.
  void EnsureConstants() {
    if (!constants_live_) LoadConstants();
    constants_live_ = true;
  }

  void LoadConstants() {
    Broadcast(half_, kHalf);
    Broadcast(one_, kOne);
    Broadcast(magnitude_bits_, ~kSignBit);
    Broadcast(sign_bit_, kSignBit);
  }

  // A loop's invariants: the constants, its scalars' registers and its
  // tiles' addresses.
  void LoadInvariants() {
    if (needs_constants_) EnsureConstants();
    for (const auto& [value, index] : scalar_register_) {
      vbroadcastss(Zmm(index), dword[rbx + value * 16 + 8]);
    }
    for (const auto& [value, index] : pointer_register_) {
      mov(Xbyak::Reg64(index), ptr[rbx + value * 16]);
    }
  }

  // Where vector j of the tile of `value` is.
  Xbyak::Address TileElement(int value, int j) {
    if (auto it = pointer_register_.find(value); it != pointer_register_.end()) {
      return ptr[Xbyak::Reg64(it->second) + r14 * 4 + 64 * j];
    }
    mov(rax, ptr[rbx + value * 16]);
    return ptr[rax + r14 * 4 + 64 * j];
  }

  void EmitBody(bool masked) {
    masked_ = masked;
    pinned_result_ = -1;
    const int count = static_cast<int>(steps_.size());
    int first = 0;
    for (int phase = 0; phase < phases_; ++phase) {
      int end = first;
      while (end < count && phase_of_[end] == phase && steps_[end].op != Op::kMath) ++end;
      const std::vector<int> pool = PhasePool(phase);
      for (int j = 0; j < kVectors; ++j) {
        LoadMask(j);
        free_ = pool;
        register_of_.clear();
        int reduce = 0;
        for (int s = 0; s < first; ++s) reduce += steps_[s].op == Op::kReduce;
        for (int s = first; s < end; ++s) {
          EmitStep(s, j, steps_[s].op == Op::kReduce ? first_lanes_[reduce++] : -1);
        }
      }
      if (end < count) EmitMath(end);  // the step that ends the phase
      first = end + 1;
    }
  }

  // Vector j's mask: the elements of [r14 + 16 j, r14 + 16 j + 16) below n.
  // The partial iteration's masks: the same n - (n / 64) * 64 elements in
  // every loop of every row, so computed once.
  void EmitMasks() {
    mov(rax, r12);
    and_(rax, ElementsPerIteration() - 1);
    for (int j = 0; j < kVectors; ++j) {
      mov(rcx, rax);
      if (j > 0) sub(rcx, 16 * j);
      xor_(edx, edx);
      test(rcx, rcx);
      cmovl(rcx, rdx);
      mov(edx, 16);
      cmp(rcx, rdx);
      cmovg(rcx, rdx);
      mov(edx, 0xFFFF);
      bzhi(edx, edx, ecx);
      mov(word[rsp + 2 * j], dx);
    }
  }

  void LoadMask(int j) {
    if (masked_) kmovw(k1, word[rsp + 2 * j]);
  }

  void Broadcast(const Zmm& z, uint32_t bits) {
    mov(eax, bits);
    vpbroadcastd(z, eax);
  }

  // Vector j of an operand: its register, or loaded into `staged` (a
  // tile's elements past n as zeros).
  Zmm Operand(const TileLoopStep::Operand& operand, const Zmm& staged, int j) {
    switch (operand.source) {
      case Source::kLoop: {
        if (auto it = register_of_.find(operand.value); it != register_of_.end()) {
          return Zmm(it->second);
        }
        if (pinned_result_ == operand.value) return Zmm(result_register_[j]);
        vmovaps(staged, ptr[rsp + TempOffset(index_of_.at(operand.value)) + 64 * j]);
        return staged;
      }
      case Source::kTile:
        if (masked_) {
          vmovups(staged | k1 | T_z, TileElement(operand.value, j));
        } else {
          vmovups(staged, TileElement(operand.value, j));
        }
        return staged;
      case Source::kScalar:
        if (auto it = scalar_register_.find(operand.value); it != scalar_register_.end()) {
          return Zmm(it->second);
        }
        vbroadcastss(staged, dword[rbx + operand.value * 16 + 8]);
        return staged;
    }
    return staged;
  }

  void StoreTile(const TileLoopStep& step, int j, const Zmm& z) {
    if (masked_) {
      vmovups(TileElement(step.value, j) | k1, z);
    } else if (step.streaming) {
      vmovntps(TileElement(step.value, j), z);
    } else {
      vmovups(TileElement(step.value, j), z);
    }
  }

  // Vector j of step s (not a math step): its operands, its value in a
  // new register (or folded into its lanes), the registers of values
  // read for the last time freed.
  void EmitStep(int s, int j, int first_lane) {
    const TileLoopStep& step = steps_[s];
    Zmm in[3] = {zmm1, zmm2, zmm3};
    for (size_t o = 0; o < step.operands.size(); ++o) {
      in[o] = Operand(step.operands[o], Zmm(1 + static_cast<int>(o)), j);
    }
    if (step.op == Op::kReduce) {
      const tile_ops::Reduction& reduction = step.reduction;
      const Zmm lanes(first_lane + j % static_cast<int>(reduction.lanes / 16));
      if (nan_mask_of_[s] >= 0) {
        RangeFold(reduction.op == BinaryOp::kMaximum, lanes, in[0], nan_mask_of_[s]);
      } else if (reduction.op == BinaryOp::kMaximum || reduction.op == BinaryOp::kMinimum) {
        Fold(reduction, zmm7, lanes, in[0]);  // MaxMin's out is neither operand
        vmovaps(masked_ ? lanes | k1 : lanes, zmm7);
      } else {
        Fold(reduction, masked_ ? lanes | k1 : lanes, lanes, in[0]);  // merge-masked
      }
    } else {
      // A value only a pinned routine operand reads is computed in place.
      const bool only_operand = feeds_pinned_operand_[s] && last_reader_[s] < 0 && !in_temp_[s];
      if (!only_operand && free_.empty()) throw OutOfRegisters();
      const Zmm out(only_operand ? operand_register_[j] : free_.back());
      if (!only_operand) free_.pop_back();
      EmitElementwise(step, out, in);
      if (in_temp_[s]) vmovaps(ptr[rsp + TempOffset(s) + 64 * j], out);
      if (feeds_pinned_operand_[s] && !only_operand) vmovaps(Zmm(operand_register_[j]), out);
      if (step.store) StoreTile(step, j, out);
      if (!only_operand && last_reader_[s] >= 0) {
        register_of_[step.value] = out.getIdx();
      } else if (!only_operand) {
        free_.push_back(out.getIdx());
      }
    }
    for (const TileLoopStep::Operand& operand : step.operands) {
      if (operand.source != Source::kLoop) continue;
      const int producer = index_of_.at(operand.value);
      auto it = register_of_.find(operand.value);
      if (last_reader_[producer] == s && it != register_of_.end()) {
        free_.push_back(it->second);
        register_of_.erase(it);
      }
    }
  }

  // lanes = max (or min) of lanes and x where no NaN is involved, by
  // vrange (its max and min order -0 below +0, as MaxMin does, whichever
  // operand comes first, but pass over a quiet NaN); whether x held a NaN
  // goes into mask k`nan_mask` instead, which CombineLanes reads.  Two
  // instructions and a mask OR, where MaxMin and the copy back take six:
  // the row maximum of softmax.  Only the elements below n count in the
  // partial iteration.
  void RangeFold(bool is_max, const Zmm& lanes, const Zmm& x, int nan_mask) {
    // imm8: bits 1:0 select min (0) or max (1), bits 3:2 = 01 take the
    // sign from the compare.
    const uint8_t select = is_max ? 0x5 : 0x4;
    vrangeps(masked_ ? lanes | k1 : lanes, lanes, x, select);
    vcmpps(masked_ ? k2 | k1 : k2, x, x, kCmpUnordQ);
    korw(Xbyak::Opmask(nan_mask), Xbyak::Opmask(nan_mask), k2);
  }

  // tile_ops' MaxMin: the compare-select (x86's max and min: a > b ? a :
  // b, and a < b ? a : b), equal operands' bits combined (AND for max: +0
  // wins; OR for min), a NaN `a` kept.  Clobbers k3.
  void MaxMin(const Zmm& out, const Zmm& a, const Zmm& b, bool is_max) {
    if (is_max) {
      vmaxps(out, a, b);
    } else {
      vminps(out, a, b);
    }
    vcmpps(k3, a, b, kCmpEqOq);
    if (is_max) {
      vpandd(out | k3, a, b);
    } else {
      vpord(out | k3, a, b);
    }
    vcmpps(k3, a, a, kCmpUnordQ);
    vmovaps(out | k3, a);
  }

  // out = a op b; out is neither a nor b.
  void Binary(BinaryOp op, const Zmm& out, const Zmm& a, const Zmm& b) {
    switch (op) {
      case BinaryOp::kAdd:
        return vaddps(out, a, b);
      case BinaryOp::kSubtract:
        return vsubps(out, a, b);
      case BinaryOp::kMultiply:
        return vmulps(out, a, b);
      case BinaryOp::kDivide:
        return vdivps(out, a, b);
      case BinaryOp::kMaximum:
        return MaxMin(out, a, b, true);
      case BinaryOp::kMinimum:
        return MaxMin(out, a, b, false);
    }
  }

  // A NaN input stays itself (floor, ceil and sign in tile_ops).
  void KeepNan(const Zmm& out, const Zmm& a) {
    vcmpps(k3, a, a, kCmpUnordQ);
    vmovaps(out | k3, a);
  }

  void Unary(UnaryOp op, const Zmm& out, const Zmm& a) {
    switch (op) {
      case UnaryOp::kNegate:
        return vpxord(out, a, sign_bit_);
      case UnaryOp::kAbs:
        return vpandd(out, a, magnitude_bits_);
      case UnaryOp::kSqrt:
        return vsqrtps(out, a);
      case UnaryOp::kRsqrt:
        vsqrtps(zmm6, a);
        return vdivps(out, one_, zmm6);
      case UnaryOp::kFloor:
        vrndscaleps(out, a, kRoundDown);
        return KeepNan(out, a);
      case UnaryOp::kCeil:
        vrndscaleps(out, a, kRoundUp);
        return KeepNan(out, a);
      case UnaryOp::kRoundNearestEven:
        return vrndscaleps(out, a, kRoundEven);
      case UnaryOp::kRoundNearestAfz:
        // roundf: t = trunc(x); where |x - t| >= 0.5, t + copysign(1, x).
        vrndscaleps(out, a, kRoundTruncate);
        vsubps(zmm6, a, out);
        vpandd(zmm6, zmm6, magnitude_bits_);
        vcmpps(k2, zmm6, half_, kCmpGeOq);
        vpandd(zmm6, a, sign_bit_);
        vpord(zmm6, zmm6, one_);
        return vaddps(out | k2, out, zmm6);
      case UnaryOp::kSign:
        // copysign(x != 0 ? 1 : 0, x); a NaN stays.
        vpxord(out, out, out);
        vcmpps(k2, a, out, kCmpNeqOq);
        vmovaps(out | k2, one_);
        vpandd(zmm6, a, sign_bit_);
        vpord(out, out, zmm6);
        return KeepNan(out, a);
    }
  }

  // out = a op b ? 1 : 0.
  void Compare(CompareOp op, const Zmm& out, const Zmm& a, const Zmm& b) {
    vcmpps(k2, a, b, ComparePredicate(op));
    vpxord(out, out, out);
    vmovaps(out | k2, one_);
  }

  // out = p != 0 ? on_true : on_false (a NaN predicate is true, as in C).
  void Select(const Zmm& out, const Zmm& p, const Zmm& on_true, const Zmm& on_false) {
    vpxord(zmm6, zmm6, zmm6);
    vcmpps(k2, p, zmm6, kCmpNeqUq);
    vblendmps(out | k2, on_false, on_true);
  }

  // A binary, unary, compare or select step into out.
  void EmitElementwise(const TileLoopStep& step, const Zmm& out, const Zmm* in) {
    switch (step.op) {
      case Op::kBinary:
        return Binary(step.binary, out, in[0], in[1]);
      case Op::kUnary:
        return Unary(step.unary, out, in[0]);
      case Op::kCompare:
        return Compare(step.compare, out, in[0], in[1]);
      case Op::kSelect:
        return Select(out, in[0], in[1], in[2]);
      case Op::kMath:
      case Op::kReduce:
        return;
    }
  }

  // Math step s: its 64-lane routine on the iteration's four vectors,
  // passed and returned in zmm0..3 (LLVM's convention for <64 x float>).
  void EmitMath(int s) {
    const TileLoopStep& step = steps_[s];
    register_of_.clear();  // the last phase's registers: its last vector's
    for (int j = 0; j < kVectors; ++j) {
      LoadMask(j);
      const Zmm argument =
          operand_pinned_[s] ? Zmm(operand_register_[j]) : Operand(step.operands[0], Zmm(j), j);
      if (argument.getIdx() != j) vmovaps(Zmm(j), argument);
    }
    const int lane_end = LaneRegisterEnd();
    for (int reg = kFirstLaneRegister; reg < lane_end; ++reg) {
      vmovaps(ptr[rsp + LaneSaveOffset(reg)], Zmm(reg));
    }
    mov(rax, reinterpret_cast<uint64_t>(step.vector_routine));
    call(rax);
    for (int reg = kFirstLaneRegister; reg < lane_end; ++reg) {
      vmovaps(Zmm(reg), ptr[rsp + LaneSaveOffset(reg)]);
    }
    constants_live_ = false;
    LoadInvariants();
    pinned_result_ = result_pinned_[s] ? step.value : -1;
    for (int j = 0; j < kVectors; ++j) {
      if (in_temp_[s]) vmovaps(ptr[rsp + TempOffset(s) + 64 * j], Zmm(j));
      if (result_pinned_[s]) vmovaps(Zmm(result_register_[j]), Zmm(j));
      if (!step.store) continue;
      LoadMask(j);
      StoreTile(step, j, Zmm(j));
    }
  }

  // out = the reducer of accumulator and value, in its operand order.
  void Fold(const tile_ops::Reduction& reduction, const Zmm& out, const Zmm& accumulator,
            const Zmm& value) {
    if (reduction.accumulator_first) {
      Binary(reduction.op, out, accumulator, value);
    } else {
      Binary(reduction.op, out, value, accumulator);
    }
  }

  // tile_ops' lane tree: lane j absorbs lane j + half, halving (the
  // vectors', then within the first by rotations), then the result folds
  // into the init value; the result goes to values[step.value].scalar.
  void CombineLanes(const TileLoopStep& step, int first_lane) {
    const tile_ops::Reduction& reduction = step.reduction;
    for (int vectors = static_cast<int>(reduction.lanes / 16); vectors > 1; vectors /= 2) {
      for (int v = 0; v < vectors / 2; ++v) {
        Fold(reduction, zmm7, Zmm(first_lane + v), Zmm(first_lane + v + vectors / 2));
        vmovaps(Zmm(first_lane + v), zmm7);
      }
    }
    const Zmm lanes(first_lane);
    for (int half = 8; half >= 1; half /= 2) {
      valignd(zmm1, lanes, lanes, half);
      Fold(reduction, zmm7, lanes, zmm1);
      vmovaps(lanes, zmm7);
    }
    vbroadcastss(zmm1, dword[rbx + step.init_value * 16 + 8]);
    Fold(reduction, zmm7, zmm1, lanes);
    vmovss(dword[rbx + step.value * 16 + 8], Xbyak::Xmm(7));
  }

  int LaneRegisterEnd() const {
    int end = kFirstLaneRegister;
    int reduce = 0;
    for (const TileLoopStep& step : steps_) {
      if (step.op == Op::kReduce) {
        end = first_lanes_[reduce++] + static_cast<int>(step.reduction.lanes / 16);
      }
    }
    return end;
  }

  const int64_t row_length_;
  const int rows_per_pass_;
  int max_loop_steps_ = 0;
  // The loop being emitted (PrepareLoop).
  std::vector<TileLoopStep> steps_;
  absl::flat_hash_map<int, int> index_of_;  // a value -> its step's index
  std::vector<int> phase_of_;
  int phases_ = 1;
  std::vector<bool> in_temp_;
  // Pinning (pin_): a math step's result kept in result_register_ for
  // the next phase, instead of a temporary; a math step's operand computed
  // into operand_register_ by the phase it ends.
  const bool pin_;
  std::vector<bool> result_pinned_;
  std::vector<bool> operand_pinned_;
  std::vector<bool> feeds_pinned_operand_;
  std::array<int, kVectors> result_register_{};
  std::array<int, kVectors> operand_register_{};
  int pinned_result_ = -1;  // the value in result_register_ now
  // Whether the loop's steps read half_ .. sign_bit_, and whether they
  // hold the constants now (a call clobbers them).
  bool needs_constants_ = false;
  bool constants_live_ = false;
  std::vector<int> last_reader_;  // in the step's phase; -1: none
  // A max or min reduce's mask register of NaNs seen (RangeFold); -1:
  // folded by MaxMin.
  std::vector<int> nan_mask_of_;
  static constexpr int kFirstNanMask = 4;  // k4..k7
  // Scalar operands' values -> the register that holds them.
  absl::flat_hash_map<int, int> scalar_register_;
  // Tiles' values -> the general register that holds the tile's address.
  absl::flat_hash_map<int, int> pointer_register_;
  // Each reduce's first lane register.
  std::vector<int> first_lanes_;
  std::vector<int> pool_;  // the value registers
  // While a phase's vector is emitted: free value registers, and the
  // values in registers.
  std::vector<int> free_;
  absl::flat_hash_map<int, int> register_of_;
  bool masked_ = false;
};

bool TileCode::Supported() {
  static const bool supported = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("bmi2");
  }();
  return supported;
}

TileCode::~TileCode() = default;

namespace {

// A step done once: as many operands as its op reads, and a math step's
// routine.
absl::Status CheckScalarStep(const TileScalarStep& step) {
  using ScalarOp = TileScalarStep::Op;
  size_t operands = 0;
  switch (step.op) {
    case ScalarOp::kRowTile:
    case ScalarOp::kColumnTile:
    case ScalarOp::kRowElement:
    case ScalarOp::kFirstElement:
    case ScalarOp::kConstant:
      break;
    case ScalarOp::kUnary:
    case ScalarOp::kMath:
    case ScalarOp::kStoreRowElement:
      operands = 1;
      break;
    case ScalarOp::kBinary:
    case ScalarOp::kCompare:
      operands = 2;
      break;
    case ScalarOp::kSelect:
      operands = 3;
      break;
  }
  if (step.operands.size() != operands) {
    return absl::InvalidArgumentError(absl::StrCat("tile code: step ", step.value, " has ",
                                                   step.operands.size(), " operands, not ",
                                                   operands));
  }
  if (step.op == ScalarOp::kMath && step.routine == nullptr) {
    return absl::InvalidArgumentError("tile code: a math step without its routine");
  }
  return absl::OkStatus();
}

absl::Status CheckLoop(const std::vector<TileLoopStep>& steps) {
  absl::flat_hash_map<int, const TileLoopStep*> earlier;
  int64_t lanes = 0;
  for (const TileLoopStep& step : steps) {
    for (const TileLoopStep::Operand& operand : step.operands) {
      auto it = earlier.find(operand.value);
      if (operand.source == Source::kLoop &&
          (it == earlier.end() || it->second->op == Op::kReduce)) {
        return absl::InvalidArgumentError(
            absl::StrCat("tile code: value ", operand.value, " is not an earlier loop value"));
      }
    }
    if (step.op == Op::kReduce) {
      if (step.reduction.lanes != 16 && step.reduction.lanes != 32 && step.reduction.lanes != 64) {
        return absl::InvalidArgumentError("tile code: a reduce of other than 16, 32 or 64 lanes");
      }
      lanes += step.reduction.lanes;
      if (lanes > TileCode::kMaxLanes) {
        return absl::InvalidArgumentError(absl::StrCat("tile code: a loop's reduces of more than ",
                                                       TileCode::kMaxLanes, " lanes in all"));
      }
    }
    if (step.op == Op::kMath && step.vector_routine == nullptr) {
      return absl::InvalidArgumentError("tile code: a math step without its routine");
    }
    earlier[step.value] = &step;
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<TileCodeItem> InterleaveRows(const std::vector<TileCodeItem>& items, int value_count,
                                         int rows) {
  std::vector<TileCodeItem> interleaved;
  interleaved.reserve(items.size() * rows);
  for (const TileCodeItem& item : items) {
    for (int row = 0; row < rows; ++row) {
      const int offset = row * value_count;
      auto moved = [offset](int value) { return value < 0 ? value : value + offset; };
      TileCodeItem copy = item;
      for (TileLoopStep& step : copy.loop) {
        step.value = moved(step.value);
        step.init_value = moved(step.init_value);
        for (TileLoopStep::Operand& operand : step.operands) operand.value = moved(operand.value);
      }
      if (copy.step.has_value()) {
        copy.step->value = moved(copy.step->value);
        copy.step->row_offset = row;
        for (int& operand : copy.step->operands) operand = moved(operand);
      }
      interleaved.push_back(std::move(copy));
    }
  }
  return interleaved;
}

absl::StatusOr<std::unique_ptr<TileCode>> TileCode::Compile(std::vector<TileCodeItem> items,
                                                            int64_t row_length, int rows_per_pass) {
  if (!Supported()) return absl::UnimplementedError("tile code: the host has no AVX-512");
  if (rows_per_pass < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("tile code: ", rows_per_pass, " rows per pass (at least 1)"));
  }
  for (const TileCodeItem& item : items) {
    if (item.step.has_value()) {
      if (absl::Status checked = CheckScalarStep(*item.step); !checked.ok()) return checked;
      continue;
    }
    if (absl::Status checked = CheckLoop(item.loop); !checked.ok()) return checked;
  }
  std::unique_ptr<TileCode> code(new TileCode);
  try {
    try {
      code->generator_ =
          std::make_unique<Generator>(items, row_length, rows_per_pass, /*pin=*/true);
    } catch (const Generator::OutOfRegisters&) {
      code->generator_ =
          std::make_unique<Generator>(items, row_length, rows_per_pass, /*pin=*/false);
    }
  } catch (const Generator::OutOfRegisters&) {
    return absl::ResourceExhaustedError(
        "tile code: a loop with more values at once than the vector registers hold");
  } catch (const Xbyak::Error& error) {
    return absl::InternalError(absl::StrCat("tile code: code generation failed: ", error.what()));
  }
  code->function_ = code->generator_->getCode<Function>();
  return code;
}

}  // namespace cpu
}  // namespace tessera
