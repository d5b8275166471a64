#include "hlo/ir/shape.h"

#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tessera {

Layout Layout::Descending(int64_t rank) {
  Layout layout;
  for (int64_t i = rank - 1; i >= 0; --i) layout.minor_to_major.push_back(i);
  return layout;
}

bool Layout::IsDescending() const {
  if (!tiles.empty() || element_size_in_bits != 0 || memory_space != 0) return false;
  const int64_t rank = static_cast<int64_t>(minor_to_major.size());
  for (int64_t i = 0; i < rank; ++i) {
    if (minor_to_major[i] != rank - 1 - i) return false;
  }
  return true;
}

std::string Layout::ToString() const {
  std::string out = absl::StrCat("{", absl::StrJoin(minor_to_major, ","));
  const bool has_extras = !tiles.empty() || element_size_in_bits != 0 || memory_space != 0;
  if (has_extras) {
    absl::StrAppend(&out, ":");
    if (!tiles.empty()) {
      absl::StrAppend(&out, "T");
      for (const Tile& tile : tiles) {
        absl::StrAppend(&out, "(");
        for (size_t i = 0; i < tile.dimensions.size(); ++i) {
          if (i > 0) absl::StrAppend(&out, ",");
          if (tile.dimensions[i] == Tile::kCombineDimension) {
            absl::StrAppend(&out, "*");
          } else {
            absl::StrAppend(&out, tile.dimensions[i]);
          }
        }
        absl::StrAppend(&out, ")");
      }
    }
    if (element_size_in_bits != 0) absl::StrAppend(&out, "E(", element_size_in_bits, ")");
    if (memory_space != 0) absl::StrAppend(&out, "S(", memory_space, ")");
  }
  absl::StrAppend(&out, "}");
  return out;
}

Shape::Shape(PrimitiveType element_type, std::vector<int64_t> dimensions)
    : element_type_(element_type), dimensions_(std::move(dimensions)) {}

Shape Shape::MakeArray(PrimitiveType type, std::vector<int64_t> dimensions) {
  return Shape(type, std::move(dimensions));
}

Shape Shape::MakeArrayWithDescendingLayout(PrimitiveType type,
                                           std::vector<int64_t> dimensions) {
  Shape shape(type, std::move(dimensions));
  shape.set_layout(Layout::Descending(shape.rank()));
  return shape;
}

Shape Shape::MakeTuple(std::vector<Shape> elements) {
  Shape shape;
  shape.element_type_ = TUPLE;
  shape.tuple_shapes_ = std::move(elements);
  return shape;
}

Shape Shape::MakeToken() { return Shape(TOKEN, {}); }

void Shape::add_dimension(int64_t size) {
  dimensions_.push_back(size);
  if (!dynamic_dimensions_.empty()) dynamic_dimensions_.push_back(false);
}

bool Shape::is_dynamic_dimension(int64_t i) const {
  return !dynamic_dimensions_.empty() && dynamic_dimensions_[i];
}

void Shape::set_dynamic_dimension(int64_t i, bool dynamic) {
  if (dynamic_dimensions_.empty()) {
    if (!dynamic) return;
    dynamic_dimensions_.assign(dimensions_.size(), false);
  }
  dynamic_dimensions_[i] = dynamic;
}

bool Shape::is_static() const {
  if (IsTuple()) {
    for (const Shape& s : tuple_shapes_) {
      if (!s.is_static()) return false;
    }
    return true;
  }
  for (bool d : dynamic_dimensions_) {
    if (d) return false;
  }
  for (int64_t d : dimensions_) {
    if (d == kUnboundedSize) return false;
  }
  return true;
}

Layout* Shape::mutable_layout() {
  if (!layout_) layout_.emplace();
  return &*layout_;
}

void Shape::ClearLayoutRecursively() {
  layout_.reset();
  for (Shape& s : tuple_shapes_) s.ClearLayoutRecursively();
}

void Shape::SetDefaultLayoutRecursively() {
  if (IsTuple()) {
    for (Shape& s : tuple_shapes_) s.SetDefaultLayoutRecursively();
  } else if (IsArray() && !layout_) {
    layout_ = Layout::Descending(rank());
  }
}

const Shape* Shape::Subshape(absl::Span<const int64_t> index) const {
  const Shape* shape = this;
  for (int64_t i : index) {
    if (!shape->IsTuple() || i < 0 || i >= shape->tuple_size()) return nullptr;
    shape = &shape->tuple_shapes_[i];
  }
  return shape;
}

Shape* Shape::MutableSubshape(absl::Span<const int64_t> index) {
  return const_cast<Shape*>(static_cast<const Shape*>(this)->Subshape(index));
}

int64_t Shape::ElementCount() const {
  int64_t count = 1;
  for (int64_t d : dimensions_) count *= d;
  return count;
}

int64_t Shape::ByteSize() const {
  if (!IsArray()) return 0;
  return ElementCount() * ByteWidth(element_type_);
}

std::string Shape::ToString(bool print_layout) const {
  if (IsTuple()) {
    std::string out = "(";
    for (int64_t i = 0; i < tuple_size(); ++i) {
      if (i > 0) absl::StrAppend(&out, ", ");
      absl::StrAppend(&out, tuple_shapes_[i].ToString(print_layout));
    }
    absl::StrAppend(&out, ")");
    return out;
  }
  std::string out(PrimitiveTypeName(element_type_));
  absl::StrAppend(&out, "[");
  for (int64_t i = 0; i < rank(); ++i) {
    if (i > 0) absl::StrAppend(&out, ",");
    if (dimensions_[i] == kUnboundedSize) {
      absl::StrAppend(&out, "?");
      continue;
    }
    if (is_dynamic_dimension(i)) absl::StrAppend(&out, "<=");
    absl::StrAppend(&out, dimensions_[i]);
  }
  absl::StrAppend(&out, "]");
  // Scalars print without their (trivial) layout, as XLA prints them.
  if (print_layout && layout_ && IsArray() && rank() > 0) absl::StrAppend(&out, layout_->ToString());
  return out;
}

bool Shape::operator==(const Shape& other) const {
  if (element_type_ != other.element_type_) return false;
  if (IsTuple()) return tuple_shapes_ == other.tuple_shapes_;
  if (dimensions_ != other.dimensions_) return false;
  for (int64_t i = 0; i < rank(); ++i) {
    if (is_dynamic_dimension(i) != other.is_dynamic_dimension(i)) return false;
  }
  return layout_ == other.layout_;
}

bool ShapesCompatible(const Shape& a, const Shape& b) {
  if (a.element_type() != b.element_type()) return false;
  if (a.IsTuple()) {
    if (a.tuple_size() != b.tuple_size()) return false;
    for (int64_t i = 0; i < a.tuple_size(); ++i) {
      if (!ShapesCompatible(a.tuple_shapes(i), b.tuple_shapes(i))) return false;
    }
    return true;
  }
  return a.dimensions() == b.dimensions();
}

bool ShapesCompatibleIgnoringFpPrecision(const Shape& a, const Shape& b) {
  if (a.IsTuple() || b.IsTuple()) {
    if (!a.IsTuple() || !b.IsTuple() || a.tuple_size() != b.tuple_size()) return false;
    for (int64_t i = 0; i < a.tuple_size(); ++i) {
      if (!ShapesCompatibleIgnoringFpPrecision(a.tuple_shapes(i), b.tuple_shapes(i))) {
        return false;
      }
    }
    return true;
  }
  const bool both_fp =
      IsFloatingPointType(a.element_type()) && IsFloatingPointType(b.element_type());
  if (!both_fp && a.element_type() != b.element_type()) return false;
  return a.dimensions() == b.dimensions();
}

bool SameDimensions(const Shape& a, const Shape& b) {
  if (a.IsTuple() != b.IsTuple()) return false;
  if (a.IsTuple()) {
    if (a.tuple_size() != b.tuple_size()) return false;
    for (int64_t i = 0; i < a.tuple_size(); ++i) {
      if (!SameDimensions(a.tuple_shapes(i), b.tuple_shapes(i))) return false;
    }
    return true;
  }
  return a.dimensions() == b.dimensions();
}

std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dimensions) {
  std::vector<int64_t> strides(dimensions.size(), 1);
  for (int64_t i = static_cast<int64_t>(dimensions.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * dimensions[i + 1];
  }
  return strides;
}

std::string ShapeIndexToString(const ShapeIndex& index) {
  return absl::StrCat("{", absl::StrJoin(index, ","), "}");
}

}  // namespace tessera
