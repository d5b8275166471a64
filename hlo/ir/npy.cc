// NumPy `.npy` reader and writer.  The format: the magic "\x93NUMPY", a
// major and minor version byte, the header length (2 bytes little-endian in
// 1.0, 4 bytes in 2.0/3.0), then a Python dict literal such as
// "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" padded with
// spaces and a newline, then the raw elements.  The reader trusts nothing in
// the file: every size is checked against what the file holds before any
// allocation, so a hostile header is an error, never a crash.
#include "hlo/ir/npy.h"

#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include "absl/base/internal/raw_logging.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "hlo/ir/status_macros.h"

namespace tessera {
namespace {

constexpr absl::string_view kMagic = "\x93NUMPY";
constexpr int64_t kArrayAlign = 64;           // numpy's ARRAY_ALIGN
constexpr int64_t kGrowthAxisMaxDigits = 21;  // numpy's GROWTH_AXIS_MAX_DIGITS

// The dtypes this reader and writer know: numpy kind letter and item size.
struct NpyDtype {
  PrimitiveType type;
  char kind;
  int size;
  absl::string_view numpy_name;
};

constexpr NpyDtype kDtypes[] = {
    {PRED, 'b', 1, "bool"},
    {S8, 'i', 1, "int8"},
    {S16, 'i', 2, "int16"},
    {S32, 'i', 4, "int32"},
    {S64, 'i', 8, "int64"},
    {U8, 'u', 1, "uint8"},
    {U16, 'u', 2, "uint16"},
    {U32, 'u', 4, "uint32"},
    {U64, 'u', 8, "uint64"},
    {F16, 'f', 2, "float16"},
    {F32, 'f', 4, "float32"},
    {F64, 'f', 8, "float64"},
    {C64, 'c', 8, "complex64"},
    {C128, 'c', 16, "complex128"},
    // numpy has no bfloat16: ml_dtypes' (JAX's) saves its bits as two-byte
    // raw values, '<V2', which are read as bf16.  Written as float32.
    {BF16, 'V', 2, "bfloat16"},
};

const NpyDtype* FindDtype(PrimitiveType type) {
  for (const NpyDtype& dtype : kDtypes) {
    if (dtype.type == type) return &dtype;
  }
  return nullptr;
}

absl::Status NpyError(absl::string_view source, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(source, ": ", problem));
}

// Python's repr of a shape tuple: "()", "(5,)", "(2, 3)".
std::string ShapeRepr(absl::Span<const int64_t> dims) {
  if (dims.size() == 1) return absl::StrCat("(", dims[0], ",)");
  return absl::StrCat("(", absl::StrJoin(dims, ", "), ")");
}

struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

// Parses the header dict.  Accepts what numpy's literal_eval would for the
// three keys numpy writes: quoted strings (' or "), True/False, and a tuple
// of non-negative integers (with an optional trailing comma or Python 2 `L`).
class HeaderParser {
 public:
  HeaderParser(absl::string_view text, absl::string_view source) : text_(text), source_(source) {}

  absl::StatusOr<NpyHeader> Parse() {
    NpyHeader header;
    bool seen_descr = false, seen_order = false, seen_shape = false;
    SkipSpace();
    if (!Consume('{')) return Error("the header is not a dict (no '{')");
    while (true) {
      SkipSpace();
      if (Consume('}')) break;
      TS_ASSIGN_OR_RETURN(std::string key, ParseString("a quoted key"));
      SkipSpace();
      if (!Consume(':')) return Error(absl::StrCat("expected ':' after key '", key, "'"));
      SkipSpace();
      bool* seen = nullptr;
      if (key == "descr") {
        seen = &seen_descr;
        if (Peek() == '[') {
          return Error("structured dtypes (a list descr) are not supported");
        }
        TS_ASSIGN_OR_RETURN(header.descr, ParseString("a quoted dtype for 'descr'"));
      } else if (key == "fortran_order") {
        seen = &seen_order;
        TS_ASSIGN_OR_RETURN(header.fortran_order, ParseBool());
      } else if (key == "shape") {
        seen = &seen_shape;
        TS_ASSIGN_OR_RETURN(header.shape, ParseShape());
      } else {
        return Error(absl::StrCat("unexpected key '", absl::CHexEscape(key),
                                  "' (expected descr, fortran_order, shape)"));
      }
      if (*seen) return Error(absl::StrCat("duplicate key '", key, "'"));
      *seen = true;
      SkipSpace();
      if (Consume(',')) continue;
      if (Consume('}')) break;
      return Error("expected ',' or '}' after a value");
    }
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected text after the dict");
    if (!seen_descr) return Error("missing key 'descr'");
    if (!seen_order) return Error("missing key 'fortran_order'");
    if (!seen_shape) return Error("missing key 'shape'");
    return header;
  }

 private:
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool Consume(char c) {
    if (Peek() != c || pos_ >= text_.size()) return false;
    ++pos_;
    return true;
  }
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  absl::Status Error(absl::string_view problem) const {
    return NpyError(source_, absl::StrCat("bad header at offset ", pos_, ": ", problem, " in \"",
                                          absl::CHexEscape(text_.substr(0, 200)),
                                          text_.size() > 200 ? "..." : "", "\""));
  }

  absl::StatusOr<std::string> ParseString(absl::string_view what) {
    const char quote = Peek();
    if (quote != '\'' && quote != '"') return Error(absl::StrCat("expected ", what));
    ++pos_;
    const size_t end = text_.find(quote, pos_);
    if (end == absl::string_view::npos) return Error("unterminated string");
    std::string value(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return value;
  }

  absl::StatusOr<bool> ParseBool() {
    if (text_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    return Error("'fortran_order' must be True or False");
  }

  absl::StatusOr<std::vector<int64_t>> ParseShape() {
    std::vector<int64_t> dims;
    if (!Consume('(')) return Error("'shape' must be a tuple");
    while (true) {
      SkipSpace();
      if (Consume(')')) break;
      if (Peek() == '-') return Error("negative dimension in 'shape'");
      if (Peek() < '0' || Peek() > '9') return Error("'shape' must hold only integers");
      int64_t value = 0;
      while (Peek() >= '0' && Peek() <= '9') {
        const int digit = Peek() - '0';
        if (value > (std::numeric_limits<int64_t>::max() - digit) / 10) {
          return Error("dimension in 'shape' does not fit in int64");
        }
        value = value * 10 + digit;
        ++pos_;
      }
      Consume('L');
      dims.push_back(value);
      SkipSpace();
      if (Consume(',')) continue;
      if (Consume(')')) break;
      return Error("'shape' must hold only integers separated by ','");
    }
    return dims;
  }

  absl::string_view text_;
  absl::string_view source_;
  size_t pos_ = 0;
};

// The dtype of a descr like "<f4" and whether its bytes need swapping.
struct ParsedDescr {
  const NpyDtype* dtype;
  bool swap;
};

absl::StatusOr<ParsedDescr> ParseDescr(absl::string_view descr, absl::string_view source) {
  absl::string_view rest = descr;
  char order = '=';
  if (!rest.empty() && (rest[0] == '<' || rest[0] == '>' || rest[0] == '|' || rest[0] == '=')) {
    order = rest[0];
    rest.remove_prefix(1);
  }
  const NpyDtype* found = nullptr;
  if (rest.size() >= 2) {
    for (const NpyDtype& dtype : kDtypes) {
      if (rest == absl::StrCat(std::string(1, dtype.kind), dtype.size)) found = &dtype;
    }
  }
  if (found == nullptr) {
    const bool object = !rest.empty() && rest[0] == 'O';
    return NpyError(source, absl::StrCat("unsupported dtype '", absl::CHexEscape(descr), "'",
                                         object ? " (an object array, which numpy pickles)" : "",
                                         "; supported: bool, int8..int64, uint8..uint64, "
                                         "float16, float32, float64, complex64, complex128, and "
                                         "ml_dtypes' bfloat16 ('V2')"));
  }
  constexpr bool kHostLittle = std::endian::native == std::endian::little;
  const bool swap =
      found->size > 1 && ((order == '>' && kHostLittle) || (order == '<' && !kHostLittle));
  return ParsedDescr{found, swap};
}

// Reverses the bytes of each component (complex: each half) of each element.
void SwapBytes(char* data, int64_t count, const NpyDtype& dtype) {
  const int component = dtype.kind == 'c' ? dtype.size / 2 : dtype.size;
  const int64_t components = count * (dtype.size / component);
  for (int64_t i = 0; i < components; ++i) {
    char* p = data + i * component;
    for (int a = 0, b = component - 1; a < b; ++a, --b) std::swap(p[a], p[b]);
  }
}

// Copies column-major (Fortran) `src` into row-major `dst`, elements of
// `size` bytes.
void FortranToRowMajor(const char* src, char* dst, absl::Span<const int64_t> dims, int size) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<int64_t> column_strides(rank, 1);
  for (int64_t k = 1; k < rank; ++k) column_strides[k] = column_strides[k - 1] * dims[k - 1];
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  std::vector<int64_t> index(rank, 0);
  int64_t src_element = 0;
  for (int64_t linear = 0; linear < count; ++linear) {
    std::memcpy(dst + linear * size, src + src_element * size, size);
    for (int64_t k = rank - 1; k >= 0; --k) {  // next row-major index
      src_element += column_strides[k];
      if (++index[k] < dims[k]) break;
      src_element -= dims[k] * column_strides[k];
      index[k] = 0;
    }
  }
}

absl::StatusOr<Literal> ParseNpyFrom(absl::string_view bytes, absl::string_view source) {
  if (bytes.size() < kMagic.size() || bytes.substr(0, kMagic.size()) != kMagic) {
    return NpyError(source, absl::StrCat("not a .npy file: it does not start with the magic "
                                         "\"\\x93NUMPY\" (",
                                         bytes.size(), " bytes)"));
  }
  if (bytes.size() < 8) return NpyError(source, "truncated: no format version after the magic");
  const int major = static_cast<uint8_t>(bytes[6]);
  const int minor = static_cast<uint8_t>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0) {
    return NpyError(source, absl::StrCat("unsupported .npy format version ", major, ".", minor,
                                         " (1.0, 2.0 and 3.0 are supported)"));
  }
  const size_t length_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + length_bytes) {
    return NpyError(source, "truncated: the header length is cut off");
  }
  uint64_t header_length = 0;
  for (size_t i = 0; i < length_bytes; ++i) {
    header_length |= uint64_t{static_cast<uint8_t>(bytes[8 + i])} << (8 * i);
  }
  const size_t header_start = 8 + length_bytes;
  if (header_length > bytes.size() - header_start) {
    return NpyError(
        source, absl::StrCat("truncated header: it should be ", header_length, " bytes but only ",
                             bytes.size() - header_start, " follow"));
  }
  HeaderParser parser(bytes.substr(header_start, header_length), source);
  TS_ASSIGN_OR_RETURN(NpyHeader header, parser.Parse());
  TS_ASSIGN_OR_RETURN(ParsedDescr descr, ParseDescr(header.descr, source));
  const NpyDtype& dtype = *descr.dtype;

  const std::string shape_text = ShapeRepr(header.shape);
  int64_t count = 1;
  for (int64_t d : header.shape) {
    if (d != 0 && count > std::numeric_limits<int64_t>::max() / d) {
      return NpyError(
          source, absl::StrCat("shape ", shape_text, " has more elements than int64 can count"));
    }
    count *= d;
  }
  if (count > std::numeric_limits<int64_t>::max() / dtype.size) {
    return NpyError(source, absl::StrCat("shape ", shape_text, " of '", header.descr,
                                         "' has more bytes than int64 can count"));
  }
  const uint64_t data_bytes = static_cast<uint64_t>(count) * dtype.size;
  const absl::string_view data = bytes.substr(header_start + header_length);
  if (data_bytes > data.size()) {
    return NpyError(source, absl::StrCat("data is shorter than the shape says: shape ", shape_text,
                                         " of '", header.descr, "' needs ", data_bytes,
                                         " bytes but ", data.size(), " follow the header"));
  }
  if (data_bytes < data.size()) {
    return NpyError(
        source, absl::StrCat(data.size() - data_bytes, " unexpected bytes after the data of shape ",
                             shape_text, " of '", header.descr, "'"));
  }

  Literal literal(Shape::MakeArrayWithDescendingLayout(dtype.type, header.shape));
  char* out = static_cast<char*>(literal.untyped_data());
  if (header.fortran_order && header.shape.size() > 1) {
    FortranToRowMajor(data.data(), out, header.shape, dtype.size);
  } else if (data_bytes > 0) {
    std::memcpy(out, data.data(), data_bytes);
  }
  if (descr.swap) SwapBytes(out, count, dtype);
  if (dtype.type == PRED) {  // numpy reads any nonzero byte as True
    for (int64_t i = 0; i < count; ++i) out[i] = out[i] != 0 ? 1 : 0;
  }
  return literal;
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    const int error = errno;
    const std::string message = absl::StrCat("cannot open '", path, "': ", std::strerror(error));
    if (error == ENOENT) return absl::NotFoundError(message);
    return absl::InvalidArgumentError(message);
  }
  std::string contents;
  char buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0) contents.append(buffer, n);
  const bool failed = std::ferror(file) != 0;
  const int error = errno;
  std::fclose(file);
  if (failed) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot read '", path, "': ", std::strerror(error)));
  }
  return contents;
}

}  // namespace

// numpy has no bfloat16 or float8 types: such literals are written as
// float32 (exactly) and read back from float data with ReadNpyFileAs.
static bool WrittenAsFloat32(PrimitiveType type) { return type == BF16 || IsFloat8Type(type); }

std::string NpyDescr(PrimitiveType type) {
  const NpyDtype* dtype = FindDtype(WrittenAsFloat32(type) ? F32 : type);
  if (dtype == nullptr) return "";
  return absl::StrCat(dtype->size == 1 ? "|" : "<", std::string(1, dtype->kind), dtype->size);
}

absl::StatusOr<Literal> ParseNpy(std::string_view bytes) {
  return ParseNpyFrom(absl::string_view(bytes.data(), bytes.size()), "npy data");
}

absl::StatusOr<Literal> ReadNpyFile(const std::string& path) {
  TS_ASSIGN_OR_RETURN(std::string bytes, ReadFile(path));
  return ParseNpyFrom(bytes, path);
}

absl::StatusOr<Literal> ReadNpyFileAs(const std::string& path, PrimitiveType type) {
  TS_ASSIGN_OR_RETURN(Literal literal, ReadNpyFile(path));
  const PrimitiveType have = literal.shape().element_type();
  if (have == type) return literal;
  const absl::string_view have_name = FindDtype(have)->numpy_name;
  if (WrittenAsFloat32(type) && IsFloatingPointType(have)) {
    TS_ASSIGN_OR_RETURN(Literal narrowed, literal.Convert(type));
    TS_ASSIGN_OR_RETURN(Literal widened, narrowed.Convert(have));
    if (widened == literal) return narrowed;
    const int width = ByteWidth(have);
    for (int64_t i = 0; i < literal.element_count(); ++i) {
      const char* a = static_cast<const char*>(literal.untyped_data()) + i * width;
      const char* b = static_cast<const char*>(widened.untyped_data()) + i * width;
      if (std::memcmp(a, b, width) != 0) {
        return NpyError(
            path, absl::StrCat("cannot read ", have_name, " data as ", PrimitiveTypeName(type),
                               ": element ", i, " (", literal.GetAsDouble(i), ") is not exactly a ",
                               PrimitiveTypeName(type), " value"));
      }
    }
  }
  const NpyDtype* wanted = FindDtype(type);
  return NpyError(path, absl::StrCat("file has dtype ", have_name, " ('", NpyDescr(have), "') but ",
                                     PrimitiveTypeName(type),
                                     wanted != nullptr ? absl::StrCat(" (", wanted->numpy_name, ")")
                                                       : std::string(),
                                     " was requested"));
}

std::string SerializeNpy(const Literal& literal) {
  ABSL_RAW_CHECK(literal.shape().IsArray(), "SerializeNpy needs an array literal");
  if (WrittenAsFloat32(literal.shape().element_type())) {
    return SerializeNpy(literal.Convert(F32).value());  // exact
  }
  const Shape& shape = literal.shape();
  const NpyDtype& dtype = *FindDtype(shape.element_type());
  std::string dict =
      absl::StrCat("{'descr': '", NpyDescr(dtype.type),
                   "', 'fortran_order': False, 'shape': ", ShapeRepr(shape.dimensions()), ", }");
  // numpy leaves room to grow the first axis in place.
  if (shape.rank() > 0) {
    dict.append(kGrowthAxisMaxDigits - absl::StrCat(shape.dimensions(0)).size(), ' ');
  }
  const int64_t text_length = static_cast<int64_t>(dict.size()) + 1;  // + '\n'
  int64_t length_bytes = 2;
  int64_t padding = kArrayAlign - (8 + length_bytes + text_length) % kArrayAlign;
  if (text_length + padding > 0xffff) {  // numpy switches to version 2.0
    length_bytes = 4;
    padding = kArrayAlign - (8 + length_bytes + text_length) % kArrayAlign;
  }
  const uint64_t header_length = static_cast<uint64_t>(text_length + padding);

  std::string out(kMagic);
  out.push_back(static_cast<char>(length_bytes == 2 ? 1 : 2));
  out.push_back(0);
  for (int64_t i = 0; i < length_bytes; ++i) {
    out.push_back(static_cast<char>((header_length >> (8 * i)) & 0xff));
  }
  out.append(dict);
  out.append(padding, ' ');
  out.push_back('\n');
  const size_t data_start = out.size();
  out.append(static_cast<const char*>(literal.untyped_data()), literal.size_bytes());
  if constexpr (std::endian::native != std::endian::little) {
    SwapBytes(out.data() + data_start, literal.element_count(), dtype);
  }
  return out;
}

absl::Status WriteNpyFile(const Literal& literal, const std::string& path) {
  if (!literal.shape().IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat("cannot write a literal of shape ",
                                                   literal.shape().ToString(), " to '", path,
                                                   "': .npy files hold arrays only"));
  }
  const std::string bytes = SerializeNpy(literal);
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot create '", path, "': ", std::strerror(errno)));
  }
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  const bool closed = std::fclose(file) == 0;
  if (!written || !closed) {
    return absl::InternalError(absl::StrCat("cannot write '", path, "': ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace tessera
