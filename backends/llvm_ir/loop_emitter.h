// Addressing arrays in LLVM IR and looping over them:
//
//  - element types: the IR type of an element as a value (PRED is i1,
//    BF16 is its i16 bits, F16 is `half`, C64/C128 are {re, im} structs)
//    and in memory (PRED is one byte);
//  - IrIndex: a multi-dimensional index into a shape (one i64 per
//    dimension, in the shape's logical order), and the helpers between a
//    multi-index and the linear position of an element under a layout;
//  - IrArray: a pointer and a shape (with layout): the address, load and
//    store of an element;
//  - LoopEmitter: a loop nest over every index of a shape, major to minor
//    in layout order so the innermost loop walks the minor-most dimension
//    with unit stride (what LLVM's loop vectorizer wants), calling a body
//    per element; or storing a generator's value per element into an
//    IrArray.
#ifndef TESSERA_BACKENDS_LLVM_IR_LOOP_EMITTER_H_
#define TESSERA_BACKENDS_LLVM_IR_LOOP_EMITTER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hlo/ir/shape.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Value.h"

namespace tessera {
namespace llvm_ir {

// ---------------------------------------------------------------------------
// Element types.

// The IR type an element is computed in.  An error for non-array types.
absl::StatusOr<llvm::Type*> IrValueType(PrimitiveType type, llvm::LLVMContext& context);
// The IR type an element is stored as (the value type, but i8 for PRED).
absl::StatusOr<llvm::Type*> IrMemoryType(PrimitiveType type, llvm::LLVMContext& context);

// The strides, in elements, of each logical dimension of `shape` under its
// layout (row-major when it has none).  Unimplemented for tiled layouts and
// sub-byte element sizes.
absl::StatusOr<std::vector<int64_t>> LayoutStrides(const Shape& shape);

// Dimensions from minor-most to major-most: the layout's minor_to_major, or
// {rank-1, ..., 0} without a layout.
std::vector<int64_t> MinorToMajor(const Shape& shape);

// ---------------------------------------------------------------------------
// Indices.

class IrIndex {
 public:
  // The index of a scalar (rank 0).
  explicit IrIndex(llvm::Type* index_type) : index_type_(index_type) {}
  // A multi-index into `shape` (one value per dimension), optionally with
  // its linear position under `shape`'s layout when already known.
  IrIndex(std::vector<llvm::Value*> multi_index, const Shape& shape, llvm::Type* index_type,
          llvm::Value* linear = nullptr);

  // The multi-index of the element at position `linear` of `shape` under
  // its layout (div/rem by the dimension sizes, minor-most first).
  static IrIndex FromLinear(llvm::Value* linear, const Shape& shape, llvm::IRBuilder<>* b);

  const std::vector<llvm::Value*>& multi_index() const { return multi_index_; }
  llvm::Value* operator[](int64_t dimension) const { return multi_index_[dimension]; }
  int64_t rank() const { return static_cast<int64_t>(multi_index_.size()); }
  llvm::Type* index_type() const { return index_type_; }
  // The shape (dimensions and layout) the linear position was computed for;
  // empty when there is none.
  llvm::Value* linear() const { return linear_; }
  const Shape& linear_shape() const { return linear_shape_; }

  // The linear position of this index in an array of `shape` (whose
  // dimensions must be this index's): reuses the known linear position when
  // `shape` has the same dimensions and layout, else sums index * stride.
  absl::StatusOr<llvm::Value*> Linearize(const Shape& shape, llvm::IRBuilder<>* b) const;

  // A constant of the index type.
  llvm::Value* Constant(int64_t value) const;

 private:
  std::vector<llvm::Value*> multi_index_;
  llvm::Type* index_type_;
  llvm::Value* linear_ = nullptr;
  Shape linear_shape_;
};

// ---------------------------------------------------------------------------
// Arrays.

class IrArray {
 public:
  IrArray(llvm::Value* base, Shape shape) : base_(base), shape_(std::move(shape)) {}

  llvm::Value* base() const { return base_; }
  const Shape& shape() const { return shape_; }

  absl::StatusOr<llvm::Value*> EmitElementPointer(const IrIndex& index,
                                                  llvm::IRBuilder<>* b) const;
  // Loads the element at `index` as a value (PRED bytes become i1: != 0).
  absl::StatusOr<llvm::Value*> EmitRead(const IrIndex& index, llvm::IRBuilder<>* b,
                                        absl::string_view name = "") const;
  // Stores `value` (of the value type) at `index`.
  absl::Status EmitWrite(const IrIndex& index, llvm::Value* value, llvm::IRBuilder<>* b) const;

 private:
  llvm::Value* base_;
  Shape shape_;
};

// ---------------------------------------------------------------------------
// Loops.

// Emits `for (i = start; i < end; i += 1)` at the builder's position and
// leaves the builder inside the body; the caller's code after the loop goes
// at `exit_block()`'s start.  `end` and `start` have the same integer type.
class ForLoop {
 public:
  static ForLoop Emit(absl::string_view name, llvm::Value* start, llvm::Value* end,
                      llvm::IRBuilder<>* b);

  llvm::Value* induction_variable() const { return induction_variable_; }
  // Asks the optimizer not to vectorize or unroll this loop (a short one,
  // where vector code would only cost compile time).
  void DisableVectorization();
  // How many vector iterations the vectorizer should interleave (run side
  // by side in one loop iteration): more than its own choice helps a body
  // whose dependency chain is long (polynomial math), where the core
  // cannot look far enough ahead to overlap iterations by itself.
  void SetInterleaveCount(int count);
  // The vector width (in elements) the vectorizer should use.
  void SetVectorWidth(int width);
  // Asks the vectorizer to run the last, partial vector iteration under a
  // mask instead of adding an epilogue vector loop and a scalar remainder:
  // for a loop of at most a few vectors' worth of iterations, whose trip
  // count is not known when compiled, this is one loop instead of three
  // (less code to optimize and generate, and no scalar tail at run time).
  void FoldTailByMasking();
  // Moves the builder past the loop: the body is closed with the latch.
  void Finish(llvm::IRBuilder<>* b);

 private:
  void AddLoopHint(llvm::Metadata* hint);
  void AddIntegerHint(const char* name, int value);

  llvm::BasicBlock* latch_ = nullptr;
  llvm::BasicBlock* exit_ = nullptr;
  llvm::Value* induction_variable_ = nullptr;
};

// The value of one element of an array being generated.
using ElementGenerator = std::function<absl::StatusOr<llvm::Value*>(const IrIndex&)>;
// Code for one element (e.g. computing and storing it).
using ElementBody = std::function<absl::Status(const IrIndex&)>;

class LoopEmitter {
 public:
  // Runs `body` for every index of `shape`, in layout order.
  LoopEmitter(ElementBody body, Shape shape, llvm::IRBuilder<>* b);
  // Stores `generator(index)` into `target` for every index of its shape.
  LoopEmitter(ElementGenerator generator, IrArray target, llvm::IRBuilder<>* b);

  // Emits the loop nest at the builder's position; the builder ends after
  // it.  Indices are i64; every one carries its linear position under the
  // shape's layout.
  absl::Status EmitLoop(absl::string_view name = "loop");

 private:
  ElementBody body_;
  Shape shape_;
  llvm::IRBuilder<>* b_;
};

}  // namespace llvm_ir
}  // namespace tessera

#endif  // TESSERA_BACKENDS_LLVM_IR_LOOP_EMITTER_H_
