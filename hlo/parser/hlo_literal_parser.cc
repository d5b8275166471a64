// Shapes, layouts, literals and scalar values.
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/ir/status_macros.h"
#include "hlo/parser/hlo_parser_internal.h"

namespace tessera {
namespace parser_internal {
namespace {

std::string Truncated(absl::string_view text) {
  if (text.size() <= 32) return std::string(text);
  return absl::StrCat(text.substr(0, 29), "...");
}

struct NestingLeave {
  HloParserImpl* parser;
  ~NestingLeave() { parser->LeaveNesting(); }
};

// Bits of a NaN of a float format with `mantissa_bits` mantissa bits, from
// a parsed double NaN: the default quiet NaN maps to the format's quiet NaN,
// any other payload must fit.
absl::StatusOr<uint64_t> NarrowNan(double value, int mantissa_bits, int exponent_bits) {
  const uint64_t bits = std::bit_cast<uint64_t>(value);
  const bool negative = (bits >> 63) != 0;
  uint64_t payload = bits & ((uint64_t{1} << 52) - 1);
  if (payload == (uint64_t{1} << 51)) payload = uint64_t{1} << (mantissa_bits - 1);
  if (payload == 0 || payload >= (uint64_t{1} << mantissa_bits)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "NaN payload 0x", absl::Hex(payload), " does not fit in ", mantissa_bits,
        " mantissa bits"));
  }
  const int total = 1 + exponent_bits + mantissa_bits;
  const uint64_t exponent = ((uint64_t{1} << exponent_bits) - 1) << mantissa_bits;
  return (negative ? uint64_t{1} << (total - 1) : 0) | exponent | payload;
}

// The float component of a c64 element: range-checked, NaN payload kept.
absl::StatusOr<float> NarrowToFloat(double value) {
  if (std::isnan(value)) {
    TS_ASSIGN_OR_RETURN(uint64_t bits, NarrowNan(value, 23, 8));
    return std::bit_cast<float>(static_cast<uint32_t>(bits));
  }
  const float narrowed = static_cast<float>(value);
  if (std::isfinite(value) && !std::isfinite(narrowed)) {
    return absl::InvalidArgumentError(
        absl::StrCat("value ", value, " is out of range for f32"));
  }
  return narrowed;
}

}  // namespace

void SetDefaultLayouts(Shape* shape) {
  if (shape->IsTuple()) {
    for (Shape& element : *shape->mutable_tuple_shapes()) SetDefaultLayouts(&element);
  } else if (shape->IsArray() && !shape->has_layout()) {
    shape->set_layout(Layout::Descending(shape->rank()));
  }
}

// ---------------------------------------------------------------------------
// Scalars.

absl::Status HloParserImpl::ParseInt64(int64_t* value) {
  if (Kind() != TokKind::kInt) return Expected("an integer");
  // The lexer lets values up to UINT64_MAX through for u64 constants; they
  // wrap to negative numbers, which no other integer may do.
  if (!lexer_.token().int_negative && lexer_.token().int_value < 0) {
    return ErrorAt(Offset(), absl::StrCat("integer ", lexer_.TokenSource(),
                                          " is out of range for int64"));
  }
  *value = lexer_.token().int_value;
  lexer_.Lex();
  return absl::OkStatus();
}

absl::Status HloParserImpl::ParseDouble(double* value) {
  const Token& token = lexer_.token();
  switch (token.kind) {
    case TokKind::kDecimal:
      if (std::isinf(token.decimal_value)) {
        return ErrorAt(Offset(), "number is out of range for a double");
      }
      *value = token.decimal_value;
      break;
    case TokKind::kInt:
      if (token.int_negative) {
        // "-0" is negative zero for floating-point values.
        *value = token.int_value == 0 ? -0.0 : static_cast<double>(token.int_value);
      } else {
        *value = static_cast<double>(static_cast<uint64_t>(token.int_value));
      }
      break;
    case TokKind::kwInf:
      *value = std::numeric_limits<double>::infinity();
      break;
    case TokKind::kNegInf:
      *value = -std::numeric_limits<double>::infinity();
      break;
    default:
      return Expected("a number");
  }
  lexer_.Lex();
  return absl::OkStatus();
}

absl::Status HloParserImpl::ParseBool(bool* value) {
  if (Kind() != TokKind::kwTrue && Kind() != TokKind::kwFalse) return Expected("true or false");
  *value = Kind() == TokKind::kwTrue;
  lexer_.Lex();
  return absl::OkStatus();
}

absl::Status HloParserImpl::ParseString(std::string* value) {
  if (Kind() != TokKind::kString) return Expected("a quoted string");
  *value = lexer_.token().text;
  lexer_.Lex();
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Shapes and layouts.

bool HloParserImpl::CanBeShape() {
  if (Kind() == TokKind::kPrimitiveType || Kind() == TokKind::kLparen) return true;
  if (Kind() != TokKind::kIdent) return false;
  const std::string& text = lexer_.token().text;
  if (IsUnsupportedXlaTypeName(text)) return true;
  // No opcode or name is followed by '[': this is a misspelt element type.
  if (lexer_.LookAhead() == TokKind::kLsquare) return true;
  return text == "b" && lexer_.LookAhead() == TokKind::kLparen;
}

// shape ::= '(' [shape (',' shape)*] ')'
//         | type '[' [dim (',' dim)*] ']' [layout]
// dim   ::= int | '<=' int | '?'
absl::Status HloParserImpl::ParseShape(Shape* shape) {
  TS_RETURN_IF_ERROR(EnterNesting());
  NestingLeave leave{this};
  if (EatIfPresent(TokKind::kLparen)) {
    std::vector<Shape> elements;
    if (Kind() != TokKind::kRparen) {
      do {
        elements.emplace_back();
        TS_RETURN_IF_ERROR(ParseShape(&elements.back()));
      } while (EatIfPresent(TokKind::kComma));
    }
    TS_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' to end the tuple shape"));
    *shape = Shape::MakeTuple(std::move(elements));
    return absl::OkStatus();
  }
  if (Kind() == TokKind::kIdent) {
    const std::string& text = lexer_.token().text;
    if (text == "b") return ErrorAt(Offset(), "buffer shapes b(...) are not supported");
    if (IsUnsupportedXlaTypeName(text)) {
      return ErrorAt(Offset(), absl::StrCat("element type '", text, "' is not supported"));
    }
    if (lexer_.LookAhead() == TokKind::kLsquare) {
      return ErrorAt(Offset(), absl::StrCat("unknown element type '", Truncated(text), "'"));
    }
  }
  if (Kind() != TokKind::kPrimitiveType) return Expected("a shape");
  const PrimitiveType type = lexer_.token().primitive_type;
  lexer_.Lex();
  std::vector<int64_t> dimensions;
  std::vector<bool> dynamic;
  TS_RETURN_IF_ERROR(Expect(TokKind::kLsquare, "'[' to begin the dimensions"));
  if (Kind() != TokKind::kRsquare) {
    do {
      if (EatIfPresent(TokKind::kQuestionMark)) {
        dimensions.push_back(Shape::kUnboundedSize);
        dynamic.push_back(true);
        continue;
      }
      const bool bounded = EatIfPresent(TokKind::kLeq);
      const size_t offset = Offset();
      int64_t size = 0;
      if (Kind() != TokKind::kInt) return Expected("a dimension size");
      TS_RETURN_IF_ERROR(ParseInt64(&size));
      if (size < 0) return ErrorAt(offset, "expected a non-negative dimension size");
      dimensions.push_back(size);
      dynamic.push_back(bounded);
    } while (EatIfPresent(TokKind::kComma));
  }
  TS_RETURN_IF_ERROR(Expect(TokKind::kRsquare, "']' to end the dimensions"));
  *shape = Shape(type, dimensions);
  for (size_t i = 0; i < dynamic.size(); ++i) {
    if (dynamic[i]) shape->set_dynamic_dimension(static_cast<int64_t>(i), true);
  }
  // A '{' starts a layout only when an integer or ':' follows: in
  // "-> f32[2] {" it starts the computation's body instead.
  if (Kind() == TokKind::kLbrace) {
    const TokKind next = lexer_.LookAhead();
    if (next == TokKind::kInt || next == TokKind::kColon) {
      const size_t offset = Offset();
      Layout layout;
      TS_RETURN_IF_ERROR(ParseLayout(&layout));
      if (static_cast<int64_t>(layout.minor_to_major.size()) != shape->rank()) {
        return ErrorAt(offset, absl::StrCat("expected a layout of ", shape->rank(),
                                            " dimensions, got ", layout.minor_to_major.size()));
      }
      if (!shape->IsArray()) {
        return ErrorAt(offset, absl::StrCat("a ", PrimitiveTypeName(type),
                                            " shape cannot have a layout"));
      }
      std::vector<bool> used(layout.minor_to_major.size(), false);
      for (int64_t dimension : layout.minor_to_major) {
        if (dimension < 0 || dimension >= shape->rank() || used[dimension]) {
          return ErrorAt(offset, absl::StrCat("layout {", absl::StrJoin(layout.minor_to_major, ","),
                                              "} is not a permutation of the dimensions 0..",
                                              shape->rank() - 1));
        }
        used[dimension] = true;
      }
      shape->set_layout(std::move(layout));
    }
  }
  if (shape->IsArray() && !shape->has_layout()) {
    shape->set_layout(Layout::Descending(shape->rank()));
  }
  return absl::OkStatus();
}

// layout ::= '{' [int (',' int)*] [':' ['T' ('(' tile ')')+] ['E(' int ')']
//            ['S(' int ')']] '}'
absl::Status HloParserImpl::ParseLayout(Layout* layout) {
  TS_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to begin a layout"));
  if (Kind() == TokKind::kInt) {
    do {
      int64_t dimension = 0;
      TS_RETURN_IF_ERROR(ParseInt64(&dimension));
      layout->minor_to_major.push_back(dimension);
    } while (EatIfPresent(TokKind::kComma));
  }
  if (EatIfPresent(TokKind::kColon)) {
    auto at_letter = [this](absl::string_view letter) {
      return Kind() == TokKind::kIdent && lexer_.token().text == letter;
    };
    // E(n) or S(n): `letter`, then a non-negative `what` in parentheses.
    auto parse_int_in_parens = [this](absl::string_view letter, absl::string_view what,
                                      int64_t* value) {
      lexer_.Lex();
      TS_RETURN_IF_ERROR(Expect(TokKind::kLparen, absl::StrCat("'(' after ", letter)));
      const size_t offset = Offset();
      TS_RETURN_IF_ERROR(ParseInt64(value));
      if (*value < 0) return ErrorAt(offset, absl::StrCat("expected a non-negative ", what));
      return Expect(TokKind::kRparen, absl::StrCat("')' to end ", letter, "(...)"));
    };
    if (at_letter("D")) return ErrorAt(Offset(), "sparse layouts (D(...)) are not supported");
    if (at_letter("T")) {
      lexer_.Lex();
      if (Kind() != TokKind::kLparen) return Expected("'(' to begin a tile");
      while (EatIfPresent(TokKind::kLparen)) {
        Tile tile;
        if (Kind() != TokKind::kRparen) {
          do {
            if (EatIfPresent(TokKind::kAsterisk)) {
              tile.dimensions.push_back(Tile::kCombineDimension);
            } else {
              int64_t size = 0;
              const size_t size_offset = Offset();
              if (Kind() != TokKind::kInt) return Expected("a tile dimension or '*'");
              TS_RETURN_IF_ERROR(ParseInt64(&size));
              if (size <= 0) return ErrorAt(size_offset, "expected a positive tile dimension");
              tile.dimensions.push_back(size);
            }
          } while (EatIfPresent(TokKind::kComma));
        }
        TS_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' to end a tile"));
        layout->tiles.push_back(std::move(tile));
      }
    }
    if (at_letter("L") || Kind() == TokKind::kOctothorp || Kind() == TokKind::kAsterisk) {
      return ErrorAt(Offset(), "layout padding and index/pointer types are not supported");
    }
    if (at_letter("E")) {
      TS_RETURN_IF_ERROR(
          parse_int_in_parens("E", "element size in bits", &layout->element_size_in_bits));
    }
    if (at_letter("S")) {
      TS_RETURN_IF_ERROR(parse_int_in_parens("S", "memory space", &layout->memory_space));
    }
    if (at_letter("SC") || at_letter("P") || at_letter("M")) {
      return ErrorAt(Offset(), absl::StrCat("layout attribute '", lexer_.token().text,
                                            "' is not supported"));
    }
  }
  return Expect(TokKind::kRbrace, "'}' to end the layout");
}

// ---------------------------------------------------------------------------
// Literals.

absl::Status HloParserImpl::ParseLiteral(const Shape& shape, Literal* literal) {
  TS_RETURN_IF_ERROR(EnterNesting());
  NestingLeave leave{this};
  if (shape.IsTuple()) return ParseTupleLiteral(shape, literal);
  if (shape.IsArray()) return ParseArrayLiteral(shape, literal);
  return ErrorAt(Offset(), absl::StrCat("cannot write a constant of shape ",
                                        ShapeToText(shape, false)));
}

// tuple ::= '(' [literal (',' literal)*] ')'
absl::Status HloParserImpl::ParseTupleLiteral(const Shape& shape, Literal* literal) {
  TS_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' to begin a tuple literal"));
  std::vector<Literal> elements;
  for (int64_t i = 0; i < shape.tuple_size(); ++i) {
    if (i > 0) {
      TS_RETURN_IF_ERROR(Expect(TokKind::kComma, "',' between tuple elements"));
    }
    elements.emplace_back();
    TS_RETURN_IF_ERROR(ParseLiteral(shape.tuple_shapes(i), &elements.back()));
  }
  TS_RETURN_IF_ERROR(Expect(TokKind::kRparen,
                            absl::StrCat("')' to end the tuple literal of ", shape.tuple_size(),
                                         " elements")));
  *literal = Literal::MakeTuple(std::move(elements));
  return absl::OkStatus();
}

// A dense array: nested braces, one level per dimension; a rank-0 array is
// a single value.  As in XLA, commas between elements are optional.
absl::Status HloParserImpl::ParseArrayLiteral(const Shape& shape, Literal* literal) {
  const size_t start = Offset();
  // Every element needs at least one character: refuse shapes the text
  // cannot fill before allocating them.
  int64_t count = 1;
  for (int64_t d : shape.dimensions()) {
    if (d < 0) return ErrorAt(start, "cannot write a constant with an unbounded dimension");
    if (d != 0 && count > std::numeric_limits<int64_t>::max() / d) {
      return ErrorAt(start, "constant has too many elements");
    }
    count *= d;
  }
  const int64_t remaining = static_cast<int64_t>(lexer_.text().size() - start);
  if (count > 1 && count > remaining) {
    if (Kind() == TokKind::kLbrace && lexer_.LookAhead() == TokKind::kDots) {
      return ErrorAt(start, "constant value elided as {...}; the text does not hold the value");
    }
    return ErrorAt(start, absl::StrCat("constant of shape ", ShapeToText(shape, false), " has ",
                                       count, " elements, more than the text can hold"));
  }
  absl::StatusOr<Literal> created = Literal::CreateFromShape(shape);
  if (!created.ok()) return ErrorAt(start, created.status().message());
  *literal = std::move(*created);

  const int64_t rank = shape.rank();
  const std::vector<int64_t>& dims = shape.dimensions();
  std::vector<int64_t> seen(rank, 0);
  int64_t nest = 0;
  int64_t linear = 0;
  auto count_element = [&]() -> absl::Status {
    if (rank == 0) return absl::OkStatus();
    if (nest != rank) {
      return ErrorAt(Offset(), absl::StrCat("expected a nested array of rank ", rank,
                                            ", got a value at depth ", nest));
    }
    if (++seen[rank - 1] > dims[rank - 1]) {
      return ErrorAt(Offset(), absl::StrCat("expected ", dims[rank - 1],
                                            " elements in the innermost dimension, got more"));
    }
    return absl::OkStatus();
  };
  if (rank > 0 && Kind() != TokKind::kLbrace) {
    return Expected(absl::StrCat("'{' to begin an array of rank ", rank));
  }
  do {
    switch (Kind()) {
      case TokKind::kLbrace: {
        if (++nest > rank) {
          return ErrorAt(Offset(), absl::StrCat("expected a nested array of rank ", rank,
                                                ", got deeper nesting"));
        }
        if (nest > 1 && ++seen[nest - 2] > dims[nest - 2]) {
          return ErrorAt(Offset(), absl::StrCat("expected ", dims[nest - 2],
                                                " elements in dimension ", nest - 2,
                                                ", got more"));
        }
        lexer_.Lex();
        break;
      }
      case TokKind::kRbrace: {
        if (nest == 0) return Expected("a literal value");
        --nest;
        if (seen[nest] != dims[nest]) {
          return ErrorAt(Offset(), absl::StrCat("expected ", dims[nest], " elements in dimension ",
                                                nest, ", got ", seen[nest]));
        }
        seen[nest] = 0;
        lexer_.Lex();
        break;
      }
      case TokKind::kComma:
        if (nest == 0) return Expected("a literal value");
        lexer_.Lex();
        break;
      case TokKind::kDots:
        return ErrorAt(Offset(),
                       "constant value elided as {...}; the text does not hold the value");
      case TokKind::kLparen:
      case TokKind::kwTrue:
      case TokKind::kwFalse:
      case TokKind::kInt:
      case TokKind::kDecimal:
      case TokKind::kwInf:
      case TokKind::kNegInf: {
        TS_RETURN_IF_ERROR(count_element());
        if (linear >= literal->element_count()) {
          return ErrorAt(Offset(), "too many elements for the constant's shape");
        }
        TS_RETURN_IF_ERROR(StoreLiteralElement(literal, linear++, Offset()));
        break;
      }
      default:
        return Expected("a literal value");
    }
  } while (nest > 0);
  return absl::OkStatus();
}

// Reads one element value and stores it at `index`, range-checked for the
// element type.
absl::Status HloParserImpl::StoreLiteralElement(Literal* literal, int64_t index, size_t offset) {
  const PrimitiveType type = literal->shape().element_type();
  const std::string type_name(PrimitiveTypeName(type));
  const Token& token = lexer_.token();
  char* data = static_cast<char*>(literal->untyped_data());

  if (IsComplexType(type)) {
    if (Kind() != TokKind::kLparen) return Expected(absl::StrCat("'(' to begin a ", type_name, " value"));
    lexer_.Lex();
    double re = 0, im = 0;
    TS_RETURN_IF_ERROR(ParseDouble(&re));
    TS_RETURN_IF_ERROR(Expect(TokKind::kComma, "',' between the real and imaginary parts"));
    TS_RETURN_IF_ERROR(ParseDouble(&im));
    TS_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' to end the complex value"));
    if (type == C128) {
      std::memcpy(data + index * 16, &re, 8);
      std::memcpy(data + index * 16 + 8, &im, 8);
      return absl::OkStatus();
    }
    absl::StatusOr<float> re32 = NarrowToFloat(re);
    if (!re32.ok()) return ErrorAt(offset, re32.status().message());
    absl::StatusOr<float> im32 = NarrowToFloat(im);
    if (!im32.ok()) return ErrorAt(offset, im32.status().message());
    std::memcpy(data + index * 8, &*re32, 4);
    std::memcpy(data + index * 8 + 4, &*im32, 4);
    return absl::OkStatus();
  }
  if (Kind() == TokKind::kLparen) {
    return ErrorAt(offset, absl::StrCat("'(' is only valid in complex constants, not ", type_name));
  }

  if (Kind() == TokKind::kwTrue || Kind() == TokKind::kwFalse) {
    if (type != PRED) {
      return ErrorAt(offset, absl::StrCat("true/false is not a ", type_name, " value"));
    }
    literal->data<bool>()[index] = Kind() == TokKind::kwTrue;
    lexer_.Lex();
    return absl::OkStatus();
  }

  if (type == PRED || IsIntegralType(type)) {
    if (Kind() != TokKind::kInt) return Expected(absl::StrCat("an integer for ", type_name));
    const int64_t value = token.int_value;
    // Values above INT64_MAX arrive wrapped (negative without a '-').
    const bool above_int64 = !token.int_negative && value < 0;
    if (type == PRED) {
      if (value != 0 && value != 1) {
        return ErrorAt(offset, absl::StrCat("value ", lexer_.TokenSource(),
                                            " is out of range for pred (0 or 1)"));
      }
      literal->data<bool>()[index] = value != 0;
    } else {
      const int bits = BitWidth(type);
      bool in_range = true;
      if (IsSignedIntegralType(type)) {
        in_range = !above_int64;
        if (bits < 64) {
          const int64_t max = (int64_t{1} << (bits - 1)) - 1;
          in_range = in_range && value >= -max - 1 && value <= max;
        }
      } else if (bits < 64) {
        in_range = (!token.int_negative || value == 0) &&
                   static_cast<uint64_t>(value) <= (uint64_t{1} << bits) - 1;
      } else {
        in_range = !token.int_negative || value == 0;
      }
      if (!in_range) {
        return ErrorAt(offset, absl::StrCat("value ", lexer_.TokenSource(),
                                            " is out of range for ", type_name));
      }
      literal->SetFromInt64(index, value);
    }
    lexer_.Lex();
    return absl::OkStatus();
  }

  // Floating point.
  double value = 0;
  TS_RETURN_IF_ERROR(ParseDouble(&value));
  if (IsFloat8Type(type)) {
    // A float8 NaN is one encoding (its payload is not a float's); a value
    // that rounds past the largest finite one, or an infinity where the
    // format has none, is out of range.
    literal->SetFromDouble(index, value);
    const double stored = literal->GetAsDouble(index);
    if ((std::isfinite(value) && !std::isfinite(stored)) ||
        (!std::isnan(value) && std::isnan(stored))) {
      return ErrorAt(offset, absl::StrCat("value ", value, " is out of range for ", type_name));
    }
    return absl::OkStatus();
  }
  if (std::isnan(value)) {
    int mantissa_bits = 52, exponent_bits = 11;
    if (type == F32) mantissa_bits = 23, exponent_bits = 8;
    if (type == F16) mantissa_bits = 10, exponent_bits = 5;
    if (type == BF16) mantissa_bits = 7, exponent_bits = 8;
    absl::StatusOr<uint64_t> bits = NarrowNan(value, mantissa_bits, exponent_bits);
    if (!bits.ok()) return ErrorAt(offset, absl::StrCat(bits.status().message(), " of ", type_name));
    std::memcpy(data + index * ByteWidth(type), &*bits, ByteWidth(type));
    return absl::OkStatus();
  }
  if (std::isfinite(value)) {
    bool overflow = false;
    switch (type) {
      case F16: overflow = !std::isfinite(static_cast<float>(half(static_cast<float>(value)))); break;
      case BF16: overflow = !std::isfinite(static_cast<float>(bfloat16(static_cast<float>(value)))); break;
      case F32: overflow = !std::isfinite(static_cast<float>(value)); break;
      default: break;
    }
    if (overflow) {
      return ErrorAt(offset, absl::StrCat("value ", value, " is out of range for ", type_name));
    }
  }
  literal->SetFromDouble(index, value);
  return absl::OkStatus();
}

// literal ::= '(' [literal (',' literal)*] ')' | shape value
absl::Status HloParserImpl::ParseLiteralWithShape(Literal* literal) {
  TS_RETURN_IF_ERROR(EnterNesting());
  NestingLeave leave{this};
  if (EatIfPresent(TokKind::kLparen)) {
    std::vector<Literal> elements;
    if (Kind() != TokKind::kRparen) {
      do {
        elements.emplace_back();
        TS_RETURN_IF_ERROR(ParseLiteralWithShape(&elements.back()));
      } while (EatIfPresent(TokKind::kComma));
    }
    TS_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' to end the tuple literal"));
    *literal = Literal::MakeTuple(std::move(elements));
    return absl::OkStatus();
  }
  Shape shape;
  TS_RETURN_IF_ERROR(ParseShape(&shape));
  return ParseLiteral(shape, literal);
}

}  // namespace parser_internal
}  // namespace tessera
