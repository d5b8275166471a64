// Shape: the type of an HLO value.  An array shape is an element type,
// dimensions and an optional layout (minor-to-major dimension order, plus
// the tiling and memory space XLA may attach); a tuple shape is a list of
// shapes; TOKEN and OPAQUE_TYPE shapes have no dimensions.
#ifndef TESSERA_HLO_IR_SHAPE_H_
#define TESSERA_HLO_IR_SHAPE_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "hlo/ir/primitive_type.h"

namespace tessera {

// A tile of a tiled layout, e.g. the (8,128) of `{1,0:T(8,128)}`.  A
// dimension of kCombineDimension is printed `*`.
struct Tile {
  static constexpr int64_t kCombineDimension = std::numeric_limits<int64_t>::min();
  std::vector<int64_t> dimensions;
  bool operator==(const Tile&) const = default;
};

struct Layout {
  std::vector<int64_t> minor_to_major;
  std::vector<Tile> tiles;
  int64_t element_size_in_bits = 0;  // 0: the element type's own width
  int64_t memory_space = 0;          // 0: default memory
  bool operator==(const Layout&) const = default;

  // The row-major layout of a rank-`rank` array: {rank-1, ..., 1, 0}.
  static Layout Descending(int64_t rank);
  // True when minor_to_major is {rank-1, ..., 0} and nothing else is set.
  bool IsDescending() const;
  // "{1,0}" or "{1,0:T(8,128)S(1)}"; the form used in HLO text.
  std::string ToString() const;
};

// An index into a (nested) tuple shape: {} is the whole value, {1, 0} the
// first element of the second element.
using ShapeIndex = std::vector<int64_t>;

class Shape {
 public:
  // A dimension of unknown size (HLO text `?`).
  static constexpr int64_t kUnboundedSize = std::numeric_limits<int64_t>::min();

  Shape() = default;
  // An array (or token/opaque) shape without a layout.
  Shape(PrimitiveType element_type, std::vector<int64_t> dimensions);

  static Shape MakeArray(PrimitiveType type, std::vector<int64_t> dimensions);
  // An array shape with the row-major layout.
  static Shape MakeArrayWithDescendingLayout(PrimitiveType type,
                                             std::vector<int64_t> dimensions);
  static Shape MakeTuple(std::vector<Shape> elements);
  static Shape MakeToken();

  PrimitiveType element_type() const { return element_type_; }
  void set_element_type(PrimitiveType type) { element_type_ = type; }

  bool IsTuple() const { return element_type_ == TUPLE; }
  bool IsToken() const { return element_type_ == TOKEN; }
  bool IsOpaque() const { return element_type_ == OPAQUE_TYPE; }
  bool IsArray() const { return IsArrayType(element_type_); }

  // Array dimensions.
  int64_t rank() const { return static_cast<int64_t>(dimensions_.size()); }
  const std::vector<int64_t>& dimensions() const { return dimensions_; }
  int64_t dimensions(int64_t i) const { return dimensions_[i]; }
  std::vector<int64_t>* mutable_dimensions() { return &dimensions_; }
  void set_dimensions(int64_t i, int64_t size) { dimensions_[i] = size; }
  void add_dimension(int64_t size);
  bool IsScalar() const { return IsArray() && dimensions_.empty(); }

  // Bounded dynamic dimensions (`f32[<=8]`): the size is the bound.
  bool is_dynamic_dimension(int64_t i) const;
  void set_dynamic_dimension(int64_t i, bool dynamic);
  const std::vector<bool>& dynamic_dimensions() const { return dynamic_dimensions_; }
  bool is_static() const;

  // Layout; absent until one is parsed or assigned.
  bool has_layout() const { return layout_.has_value(); }
  const Layout& layout() const { return *layout_; }
  Layout* mutable_layout();
  void set_layout(Layout layout) { layout_ = std::move(layout); }
  void clear_layout() { layout_.reset(); }
  // Clears the layout here and in every tuple element.
  void ClearLayoutRecursively();
  // Sets the row-major layout on every array leaf that has none.
  void SetDefaultLayoutRecursively();

  // Tuple elements.
  int64_t tuple_size() const { return static_cast<int64_t>(tuple_shapes_.size()); }
  const std::vector<Shape>& tuple_shapes() const { return tuple_shapes_; }
  const Shape& tuple_shapes(int64_t i) const { return tuple_shapes_[i]; }
  Shape* mutable_tuple_shapes(int64_t i) { return &tuple_shapes_[i]; }
  std::vector<Shape>* mutable_tuple_shapes() { return &tuple_shapes_; }

  // The sub-shape at `index`; nullptr when the index does not exist.
  const Shape* Subshape(absl::Span<const int64_t> index) const;
  Shape* MutableSubshape(absl::Span<const int64_t> index);

  // Number of elements of an array shape (1 for a scalar).
  int64_t ElementCount() const;
  // Bytes of an array's dense data (no tiling padding); 0 for non-arrays.
  int64_t ByteSize() const;

  // "f32[2,3]" (print_layout=false) or "f32[2,3]{1,0}"; tuples "(f32[], s32[2])".
  std::string ToString(bool print_layout = false) const;

  // Exact equality, layouts included (a missing layout equals only a missing one).
  bool operator==(const Shape& other) const;
  bool operator!=(const Shape& other) const { return !(*this == other); }

 private:
  PrimitiveType element_type_ = PRIMITIVE_TYPE_INVALID;
  std::vector<int64_t> dimensions_;
  std::vector<bool> dynamic_dimensions_;  // empty or one entry per dimension
  std::optional<Layout> layout_;
  std::vector<Shape> tuple_shapes_;
};

// Same element types and dimensions everywhere, layouts ignored.
bool ShapesCompatible(const Shape& a, const Shape& b);
// Same as ShapesCompatible but also ignores floating-point precision
// (f16/bf16/f32/f64 are one kind), as XLA does for some ops.
bool ShapesCompatibleIgnoringFpPrecision(const Shape& a, const Shape& b);
// Same dimensions (and tuple structure), element types ignored.
bool SameDimensions(const Shape& a, const Shape& b);

// Row-major strides, in elements, of `dimensions`.
std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dimensions);

// Calls `fn(subshape, index)` for every sub-shape in pre-order.
template <typename Fn>
void ForEachSubshape(const Shape& shape, Fn&& fn, ShapeIndex* index = nullptr) {
  ShapeIndex local;
  if (index == nullptr) index = &local;
  fn(shape, *index);
  if (shape.IsTuple()) {
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      index->push_back(i);
      ForEachSubshape(shape.tuple_shapes(i), fn, index);
      index->pop_back();
    }
  }
}

// "{}" or "{1,0}" as HLO text writes a shape index.
std::string ShapeIndexToString(const ShapeIndex& index);

}  // namespace tessera

#endif  // TESSERA_HLO_IR_SHAPE_H_
