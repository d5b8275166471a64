// Tests for the .npy reader and writer.  Expected bytes are written out by
// hand from the format numpy documents (no numpy needed): exact headers as
// np.save pads them, big-endian and Fortran-order input, every format
// version, every dtype round-tripped, and one test per kind of malformed file
// asserting the error names the file and the problem.
#include "hlo/ir/npy.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

static_assert(std::endian::native == std::endian::little, "tests spell bytes little-endian");

// A .npy file with `dict` as its header text (a newline is added; no padding,
// which readers must not require) and `data` after it.
std::string Npy(const std::string& dict, const std::string& data, int major = 1) {
  const std::string header = dict + "\n";
  std::string out = "\x93NUMPY";
  out.push_back(static_cast<char>(major));
  out.push_back(0);
  const int length_bytes = major == 1 ? 2 : 4;
  for (int i = 0; i < length_bytes; ++i) {
    out.push_back(static_cast<char>((header.size() >> (8 * i)) & 0xff));
  }
  return out + header + data;
}

template <typename T>
std::string Bytes(std::initializer_list<T> values) {
  std::string out(values.size() * sizeof(T), '\0');
  std::memcpy(out.data(), values.begin(), out.size());
  return out;
}

// The same values with each `component`-byte group reversed (big-endian).
std::string Reversed(std::string bytes, size_t component) {
  for (size_t i = 0; i < bytes.size(); i += component) {
    std::reverse(bytes.begin() + i, bytes.begin() + i + component);
  }
  return bytes;
}

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// The error ParseNpy gives for `bytes`; fails the test if it parses.
std::string ParseError(const std::string& bytes) {
  absl::StatusOr<Literal> result = ParseNpy(bytes);
  EXPECT_FALSE(result.ok());
  if (result.ok()) return "";
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(result.status().message()), StartsWith("npy data: "));
  return std::string(result.status().message());
}

// --- writing ----------------------------------------------------------------------

TEST(NpyWriteTest, HeaderMatchesNumpyByteForByte) {
  const std::string bytes =
      SerializeNpy(Literal::CreateFromVector<float>({2, 3}, std::vector<float>{0, 1, 2, 3, 4, 5}));
  // np.save(np.arange(6, dtype='<f4').reshape(2, 3)): 20 spaces of growth room
  // for the first axis, 38 of padding to 128 bytes, then the newline.
  const std::string expected_header =
      std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" + std::string(58, ' ') + "\n";
  ASSERT_EQ(bytes.size(), 128u + 24u);
  EXPECT_EQ(bytes.substr(0, 128), expected_header);
  EXPECT_EQ(bytes.substr(128), Bytes<float>({0, 1, 2, 3, 4, 5}));
}

TEST(NpyWriteTest, ScalarAndVectorHeaders) {
  const std::string scalar = SerializeNpy(Literal::CreateR0<double>(1.5));
  EXPECT_EQ(scalar.substr(0, 128), std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
                                       "{'descr': '<f8', 'fortran_order': False, 'shape': (), }" +
                                       std::string(62, ' ') + "\n");
  EXPECT_EQ(scalar.substr(128), Bytes<double>({1.5}));
  const std::string vector = SerializeNpy(Literal::CreateR1<bool>({true, false, true}));
  EXPECT_EQ(
      vector.substr(10, 128 - 10),
      "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }" + std::string(60, ' ') + "\n");
  EXPECT_EQ(vector.substr(128), std::string("\x01\x00\x01", 3));
}

// numpy pads by 64 - (length % 64), so an already aligned header gets 64 more.
TEST(NpyWriteTest, AlignedHeaderGetsAFullExtraBlock) {
  std::vector<int64_t> dims = {2, 300};
  dims.insert(dims.end(), 12, 1);
  const std::string bytes = SerializeNpy(Literal(Shape::MakeArray(U8, dims)));
  EXPECT_EQ(bytes.size(), 192u + 600u);
  EXPECT_EQ(bytes.substr(8, 2), std::string("\xb6\x00", 2));  // 182
  EXPECT_EQ(bytes[191], '\n');
  EXPECT_EQ(bytes.substr(127, 64), std::string(64, ' '));
}

TEST(NpyWriteTest, DescrPerType) {
  EXPECT_EQ(NpyDescr(PRED), "|b1");
  EXPECT_EQ(NpyDescr(S8), "|i1");
  EXPECT_EQ(NpyDescr(U8), "|u1");
  EXPECT_EQ(NpyDescr(S16), "<i2");
  EXPECT_EQ(NpyDescr(U64), "<u8");
  EXPECT_EQ(NpyDescr(F16), "<f2");
  EXPECT_EQ(NpyDescr(BF16), "<f4");
  EXPECT_EQ(NpyDescr(C64), "<c8");
  EXPECT_EQ(NpyDescr(C128), "<c16");
  EXPECT_EQ(NpyDescr(TUPLE), "");
}

TEST(NpyWriteTest, NonArraysAndUnwritablePathsAreErrors) {
  EXPECT_THAT(WriteNpyFile(Literal::MakeTuple({}), TempPath("t.npy")).message(),
              HasSubstr("arrays only"));
  EXPECT_THAT(WriteNpyFile(Literal::CreateR0<float>(1), "/nonexistent-dir/x.npy").message(),
              HasSubstr("/nonexistent-dir/x.npy"));
}

// --- round trips ----------------------------------------------------------------

template <typename T>
void ExpectRoundTrip(std::initializer_list<T> values) {
  Literal literal =
      Literal::CreateFromVector<T>({2, static_cast<int64_t>(values.size()) / 2},
                                   absl::Span<const T>(values.begin(), values.size()));
  const std::string bytes = SerializeNpy(literal);
  EXPECT_THAT(bytes, HasSubstr("'descr': '" + NpyDescr(PrimitiveTypeOf<T>()) + "'"));
  absl::StatusOr<Literal> parsed = ParseNpy(bytes);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*parsed, literal) << parsed->ToString();
  const std::string path = TempPath(std::string(PrimitiveTypeName(PrimitiveTypeOf<T>())) + ".npy");
  ASSERT_TRUE(WriteNpyFile(literal, path).ok());
  absl::StatusOr<Literal> read = ReadNpyFile(path);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, literal);
}

TEST(NpyRoundTripTest, EveryDtype) {
  const float nan = std::nanf("");
  ExpectRoundTrip<bool>({true, false, false, true});
  ExpectRoundTrip<int8_t>({-128, 127, 0, -1});
  ExpectRoundTrip<int16_t>({-32768, 32767, 1, -2});
  ExpectRoundTrip<int32_t>({-2147483647 - 1, 2147483647, 3, 4});
  ExpectRoundTrip<int64_t>({std::numeric_limits<int64_t>::min(), 1, -1, 1ll << 40});
  ExpectRoundTrip<uint8_t>({0, 255, 7, 8});
  ExpectRoundTrip<uint16_t>({0, 65535, 1, 2});
  ExpectRoundTrip<uint32_t>({0, 4294967295u, 5, 6});
  ExpectRoundTrip<uint64_t>({0, std::numeric_limits<uint64_t>::max(), 9, 10});
  ExpectRoundTrip<half>({half(1.5f), half(-0.0f), half(65504.0f), half::FromBits(0x7e01)});
  ExpectRoundTrip<float>({0.1f, -0.0f, nan, std::numeric_limits<float>::infinity()});
  ExpectRoundTrip<double>({0.1, -1e300, std::nan(""), 5e-324});
  ExpectRoundTrip<complex64>({{1, 2}, {-3, 0.5f}, {nan, 0}, {0, -0.0f}});
  ExpectRoundTrip<complex128>({{1, 2}, {-3, 0.5}, {1e300, -1e-300}, {0, 0}});
}

TEST(NpyRoundTripTest, Bfloat16GoesThroughFloat32Exactly) {
  Literal bf16 = Literal::CreateR1<bfloat16>(
      {bfloat16(0.1f), bfloat16(-3.0f), bfloat16::FromBits(0x7fc1), bfloat16::FromBits(0x0001)});
  const std::string path = TempPath("bf16.npy");
  ASSERT_TRUE(WriteNpyFile(bf16, path).ok());
  Literal as_f32 = ReadNpyFile(path).value();
  EXPECT_EQ(as_f32.shape().element_type(), F32);
  EXPECT_EQ(as_f32, bf16.Convert(F32).value());
  absl::StatusOr<Literal> back = ReadNpyFileAs(path, BF16);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, bf16);
  EXPECT_EQ(ReadNpyFileAs(path, F32).value(), as_f32);  // same type: no conversion
}

// ml_dtypes' bfloat16 (JAX's), which np.save writes as raw 2-byte values.
TEST(NpyReadTest, MlDtypesBfloat16IsReadAsBf16) {
  absl::StatusOr<Literal> literal =
      ParseNpy(Npy("{'descr': '<V2', 'fortran_order': False, 'shape': (3,), }",
                   Bytes<uint16_t>({0x3f80, 0xc040, 0x7f80})));  // 1, -3, inf
  ASSERT_TRUE(literal.ok()) << literal.status();
  EXPECT_EQ(literal->shape().element_type(), BF16);
  EXPECT_EQ(literal->GetAsDouble(0), 1.0);
  EXPECT_EQ(literal->GetAsDouble(1), -3.0);
  EXPECT_EQ(literal->GetAsDouble(2), INFINITY);
}

TEST(NpyRoundTripTest, EmptyArrays) {
  for (std::vector<int64_t> dims : {std::vector<int64_t>{0}, std::vector<int64_t>{2, 0}}) {
    Literal empty(Shape::MakeArray(F32, dims));
    EXPECT_EQ(ParseNpy(SerializeNpy(empty)).value(), empty);
  }
}

// --- reading what numpy (or other writers) produce --------------------------------

TEST(NpyReadTest, ScalarsAndVersions) {
  Literal scalar =
      ParseNpy(Npy("{'descr': '<i4', 'fortran_order': False, 'shape': (), }", Bytes<int32_t>({-7})))
          .value();
  EXPECT_EQ(scalar, Literal::CreateR0<int32_t>(-7));
  for (int major : {2, 3}) {
    Literal literal = ParseNpy(Npy("{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }",
                                   Bytes<uint16_t>({1, 65535}), major))
                          .value();
    EXPECT_EQ(literal, Literal::CreateR1<uint16_t>({1, 65535})) << major;
  }
}

TEST(NpyReadTest, LenientHeaderSyntax) {
  // Double quotes, any key order, Python 2 longs, no trailing comma, tabs.
  Literal literal =
      ParseNpy(Npy("{\"shape\": (2L,\t1L), \"descr\": \"<i8\", \"fortran_order\": False}",
                   Bytes<int64_t>({5, 6})))
          .value();
  EXPECT_EQ(literal, Literal::CreateFromVector<int64_t>({2, 1}, std::vector<int64_t>{5, 6}));
  EXPECT_EQ(
      ParseNpy(Npy("{'descr': 'f4', 'fortran_order': False, 'shape': (1,)}", Bytes<float>({2.5f})))
          .value(),
      Literal::CreateR1<float>({2.5f}));
}

TEST(NpyReadTest, BigEndianInput) {
  EXPECT_EQ(ParseNpy(Npy("{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }",
                         std::string("\x00\x00\x00\x01\xff\xff\xff\xfe", 8)))
                .value(),
            Literal::CreateR1<int32_t>({1, -2}));
  EXPECT_EQ(ParseNpy(Npy("{'descr': '>f2', 'fortran_order': False, 'shape': (1,), }",
                         std::string("\x3c\x00", 2)))
                .value(),
            Literal::CreateR1<half>({half(1.0f)}));
  EXPECT_EQ(ParseNpy(Npy("{'descr': '>f8', 'fortran_order': False, 'shape': (), }",
                         Reversed(Bytes<double>({0.1}), 8)))
                .value(),
            Literal::CreateR0<double>(0.1));
  // Complex: each component swapped on its own.
  EXPECT_EQ(ParseNpy(Npy("{'descr': '>c8', 'fortran_order': False, 'shape': (1,), }",
                         Reversed(Bytes<float>({1.5f, -2.0f}), 4)))
                .value(),
            Literal::CreateR1<complex64>({complex64(1.5f, -2.0f)}));
  EXPECT_EQ(ParseNpy(Npy("{'descr': '>c16', 'fortran_order': False, 'shape': (1,), }",
                         Reversed(Bytes<double>({0.25, 8.0}), 8)))
                .value(),
            Literal::CreateR1<complex128>({complex128(0.25, 8.0)}));
  EXPECT_EQ(ParseNpy(Npy("{'descr': '>u8', 'fortran_order': False, 'shape': (1,), }",
                         std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8)))
                .value(),
            Literal::CreateR1<uint64_t>({0x0102030405060708ull}));
}

TEST(NpyReadTest, NativeAndNotApplicableByteOrders) {
  EXPECT_EQ(ParseNpy(Npy("{'descr': '=i2', 'fortran_order': False, 'shape': (1,), }",
                         Bytes<int16_t>({-300})))
                .value(),
            Literal::CreateR1<int16_t>({-300}));
  EXPECT_EQ(ParseNpy(Npy("{'descr': '|i1', 'fortran_order': False, 'shape': (1,), }",
                         std::string("\xff", 1)))
                .value(),
            Literal::CreateR1<int8_t>({-1}));
}

TEST(NpyReadTest, BoolBytesAreNormalized) {
  Literal literal = ParseNpy(Npy("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
                                 std::string("\x00\x02\x01", 3)))
                        .value();
  EXPECT_EQ(literal, Literal::CreateR1<bool>({false, true, true}));
}

TEST(NpyReadTest, FortranOrderIsTransposedToRowMajor) {
  // [[1, 2, 3], [4, 5, 6]] stored column by column.
  EXPECT_EQ(ParseNpy(Npy("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }",
                         Bytes<int32_t>({1, 4, 2, 5, 3, 6})))
                .value(),
            Literal::CreateFromVector<int32_t>({2, 3}, std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
  // Rank 3: element (i, j, k) = 100i + 10j + k, first index fastest in the file.
  std::vector<int16_t> column_major, row_major;
  for (int k = 0; k < 4; ++k) {
    for (int j = 0; j < 3; ++j) {
      for (int i = 0; i < 2; ++i)
        column_major.push_back(static_cast<int16_t>(100 * i + 10 * j + k));
    }
  }
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      for (int k = 0; k < 4; ++k) row_major.push_back(static_cast<int16_t>(100 * i + 10 * j + k));
    }
  }
  std::string data(column_major.size() * 2, '\0');
  std::memcpy(data.data(), column_major.data(), data.size());
  EXPECT_EQ(ParseNpy(Npy("{'descr': '>i2', 'fortran_order': True, 'shape': (2, 3, 4), }",
                         Reversed(data, 2)))
                .value(),
            Literal::CreateFromVector<int16_t>({2, 3, 4}, row_major));
  // Rank 1 and 0: the orders coincide.
  EXPECT_EQ(ParseNpy(Npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }",
                         Bytes<float>({1, 2})))
                .value(),
            Literal::CreateR1<float>({1, 2}));
}

// --- malformed input ---------------------------------------------------------------

const char kGoodDict[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";

TEST(NpyMalformedTest, BadMagic) {
  EXPECT_THAT(ParseError(""), HasSubstr("not a .npy file"));
  EXPECT_THAT(ParseError("PK\x03\x04 a zip file"), HasSubstr("not a .npy file"));
  EXPECT_THAT(ParseError("\x93NUMPX\x01\x00"), HasSubstr("magic"));
}

TEST(NpyMalformedTest, MissingVersion) {
  EXPECT_THAT(ParseError("\x93NUMPY"), HasSubstr("no format version"));
}

TEST(NpyMalformedTest, UnsupportedVersion) {
  std::string bytes = Npy(kGoodDict, Bytes<float>({1, 2}));
  bytes[6] = 4;
  EXPECT_THAT(ParseError(bytes), HasSubstr("unsupported .npy format version 4.0"));
  bytes[6] = 1;
  bytes[7] = 1;
  EXPECT_THAT(ParseError(bytes), HasSubstr("version 1.1"));
}

TEST(NpyMalformedTest, TruncatedHeaderLength) {
  EXPECT_THAT(ParseError(std::string("\x93NUMPY\x01\x00\x10", 9)), HasSubstr("header length"));
  EXPECT_THAT(ParseError(std::string("\x93NUMPY\x02\x00\x10\x00\x00", 11)),
              HasSubstr("header length"));
}

TEST(NpyMalformedTest, TruncatedHeader) {
  const std::string bytes = Npy(kGoodDict, "");
  EXPECT_THAT(ParseError(bytes.substr(0, 30)),
              HasSubstr("truncated header: it should be 58 bytes but only 20 follow"));
  std::string huge = std::string("\x93NUMPY\x02\x00\xff\xff\xff\xff", 12) + "{}";
  EXPECT_THAT(ParseError(huge), HasSubstr("truncated header: it should be 4294967295 bytes"));
}

TEST(NpyMalformedTest, HeaderNotADict) {
  EXPECT_THAT(ParseError(Npy("['descr', '<f4']", "")), HasSubstr("the header is not a dict"));
  EXPECT_THAT(ParseError(Npy("", "")), HasSubstr("the header is not a dict"));
  EXPECT_THAT(ParseError(Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x", "")),
              HasSubstr("unexpected text after the dict"));
  EXPECT_THAT(ParseError(Npy("{'descr': '<f4' 'shape': (2,)}", "")),
              HasSubstr("expected ',' or '}'"));
  EXPECT_THAT(ParseError(Npy("{descr: '<f4'}", "")), HasSubstr("expected a quoted key"));
}

TEST(NpyMalformedTest, MissingUnknownAndDuplicateKeys) {
  EXPECT_THAT(ParseError(Npy("{'descr': '<f4', 'fortran_order': False}", "")),
              HasSubstr("missing key 'shape'"));
  EXPECT_THAT(ParseError(Npy("{'fortran_order': False, 'shape': ()}", "")),
              HasSubstr("missing key 'descr'"));
  EXPECT_THAT(ParseError(Npy("{'descr': '<f4', 'shape': (), 'fortran_order': False, 'x': 1}", "")),
              HasSubstr("unexpected key 'x'"));
  EXPECT_THAT(ParseError(Npy("{'descr': '<f4', 'descr': '<f4'}", "")),
              HasSubstr("duplicate key 'descr'"));
}

TEST(NpyMalformedTest, BadValues) {
  EXPECT_THAT(ParseError(Npy("{'descr': '<f4', 'fortran_order': 0, 'shape': ()}", "")),
              HasSubstr("'fortran_order' must be True or False"));
  EXPECT_THAT(ParseError(Npy("{'descr': '<f4, 'shape': ()}", "")),
              HasSubstr("expected ',' or '}'"));
  EXPECT_THAT(ParseError(Npy("{'descr': '<f4", "")), HasSubstr("unterminated string"));
  EXPECT_THAT(ParseError(Npy("{'descr': '<f4', 'fortran_order': False, 'shape': [2]}", "")),
              HasSubstr("'shape' must be a tuple"));
  EXPECT_THAT(ParseError(Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2.5,)}", "")),
              HasSubstr("'shape' must hold only integers"));
}

TEST(NpyMalformedTest, UnsupportedDtypes) {
  auto error = [](const std::string& descr) {
    return ParseError(
        Npy("{'descr': " + descr + ", 'fortran_order': False, 'shape': (1,)}", "0123456789abcdef"));
  };
  EXPECT_THAT(error("'<U5'"), HasSubstr("unsupported dtype '<U5'"));
  EXPECT_THAT(error("'|O'"), HasSubstr("object array"));
  EXPECT_THAT(error("'<f16'"), HasSubstr("unsupported dtype '<f16'"));
  EXPECT_THAT(error("'<f3'"), HasSubstr("unsupported dtype '<f3'"));
  EXPECT_THAT(error("'!f4'"), HasSubstr("unsupported dtype '!f4'"));
  EXPECT_THAT(error("'<M8[ns]'"), HasSubstr("unsupported dtype"));
  EXPECT_THAT(error("[('a', '<i4'), ('b', '<f4')]"), HasSubstr("structured dtypes"));
}

TEST(NpyMalformedTest, NegativeDimension) {
  EXPECT_THAT(ParseError(Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -1), }", "")),
              HasSubstr("negative dimension"));
}

TEST(NpyMalformedTest, ShapesThatOverflowInt64) {
  EXPECT_THAT(ParseError(Npy("{'descr': '<f4', 'fortran_order': False, "
                             "'shape': (99999999999999999999,), }",
                             "")),
              HasSubstr("does not fit in int64"));
  EXPECT_THAT(ParseError(Npy("{'descr': '<f4', 'fortran_order': False, "
                             "'shape': (4294967296, 4294967296, 4), }",
                             "")),
              HasSubstr("shape (4294967296, 4294967296, 4) has more elements than int64"));
  EXPECT_THAT(ParseError(Npy("{'descr': '<c16', 'fortran_order': False, "
                             "'shape': (1152921504606846976,), }",
                             "")),
              HasSubstr("more bytes than int64"));
}

TEST(NpyMalformedTest, ShapeLargerThanTheFile) {
  EXPECT_THAT(ParseError(Npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000,), }",
                             Bytes<double>({1, 2}))),
              HasSubstr("data is shorter than the shape says: shape (1000000000,) of '<f8' "
                        "needs 8000000000 bytes but 16 follow the header"));
}

TEST(NpyMalformedTest, DataShorterThanTheShape) {
  EXPECT_THAT(ParseError(Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                             Bytes<float>({1, 2, 3, 4, 5}))),
              HasSubstr("needs 24 bytes but 20 follow"));
}

TEST(NpyMalformedTest, TrailingBytes) {
  EXPECT_THAT(ParseError(Npy(kGoodDict, Bytes<float>({1, 2, 3}))),
              HasSubstr("4 unexpected bytes after the data"));
}

// --- files ---------------------------------------------------------------------------

TEST(NpyFileTest, MissingFileIsNotFound) {
  absl::StatusOr<Literal> result = ReadNpyFile(TempPath("does-not-exist.npy"));
  EXPECT_EQ(result.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(result.status().message(), HasSubstr("does-not-exist.npy"));
}

TEST(NpyFileTest, ErrorsNameTheFile) {
  const std::string path = TempPath("bad.npy");
  WriteBytes(path, Npy("{'descr': '<U5', 'fortran_order': False, 'shape': (1,)}", ""));
  absl::StatusOr<Literal> result = ReadNpyFile(path);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(result.status().message()), StartsWith(path + ": unsupported dtype"));
  EXPECT_EQ(ReadNpyFile(TempPath("")).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(NpyFileTest, ReadAsMismatchedTypeNamesBothDtypes) {
  const std::string path = TempPath("f64.npy");
  ASSERT_TRUE(WriteNpyFile(Literal::CreateR1<double>({1, 2}), path).ok());
  absl::StatusOr<Literal> result = ReadNpyFileAs(path, F32);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(),
              HasSubstr("file has dtype float64 ('<f8') but f32 (float32) was requested"));
  const std::string ints = TempPath("s32.npy");
  ASSERT_TRUE(WriteNpyFile(Literal::CreateR1<int32_t>({1}), ints).ok());
  EXPECT_THAT(ReadNpyFileAs(ints, BF16).status().message(),
              HasSubstr("int32 ('<i4') but bf16 (bfloat16) was requested"));
  // f64 data that is exactly bf16 is accepted too.
  EXPECT_EQ(ReadNpyFileAs(path, BF16).value(),
            Literal::CreateR1<bfloat16>({bfloat16(1.0f), bfloat16(2.0f)}));
}

TEST(NpyFileTest, ReadAsBfloat16RefusesToRound) {
  const std::string path = TempPath("inexact.npy");
  ASSERT_TRUE(WriteNpyFile(Literal::CreateR1<float>({1.0f, 0.1f}), path).ok());
  absl::StatusOr<Literal> result = ReadNpyFileAs(path, BF16);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(), HasSubstr("element 1"));
  EXPECT_THAT(result.status().message(), HasSubstr("is not exactly a bf16 value"));
}

TEST(NpyFileTest, Float8IsWrittenAsFloat32AndReadBackExactly) {
  const std::string path = TempPath("f8.npy");
  const Literal f8 = Literal::CreateR1<float8_e4m3fn>(
      {float8_e4m3fn(1.0f), float8_e4m3fn(-448.0f), float8_e4m3fn(0.001953125f)});
  ASSERT_TRUE(WriteNpyFile(f8, path).ok());
  EXPECT_EQ(ReadNpyFile(path)->shape().element_type(), F32);
  EXPECT_EQ(ReadNpyFileAs(path, F8E4M3FN).value(), f8);
  ASSERT_TRUE(WriteNpyFile(Literal::CreateR1<float>({1.0f, 1.1f}), path).ok());
  absl::StatusOr<Literal> inexact = ReadNpyFileAs(path, F8E4M3FN);
  EXPECT_THAT(inexact.status().message(), HasSubstr("element 1"));
  EXPECT_THAT(inexact.status().message(), HasSubstr("is not exactly a f8e4m3fn value"));
}

}  // namespace
}  // namespace tessera
