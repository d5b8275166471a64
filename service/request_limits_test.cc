#include "service/request_limits.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/proto/literal_proto.h"
#include "hlo/proto/shape_proto.h"

namespace tessera {
namespace service {
namespace {

using ::testing::HasSubstr;

TEST(RequestLimitsTest, CheckedBytesCountsAndRefuses) {
  EXPECT_EQ(*CheckedBytes(Shape::MakeArray(F32, {4, 8}), 1000, "v"), 128);
  EXPECT_EQ(*CheckedBytes(Shape::MakeTuple({Shape::MakeArray(S8, {3}), Shape::MakeArray(F64, {2})}),
                          1000, "v"),
            19);
  EXPECT_EQ(*CheckedBytes(Shape::MakeTuple({}), 0, "v"), 0);
  absl::Status over = CheckedBytes(Shape::MakeArray(F32, {251}), 1000, "%p").status();
  EXPECT_EQ(over.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(over.message()), HasSubstr("%p f32[251] is over the server's limit"));
  // A product of dimensions that overflows 64 bits is over any limit.
  const int64_t huge = int64_t{1} << 40;
  EXPECT_EQ(CheckedBytes(Shape::MakeArray(F32, {huge, huge, huge}), INT64_MAX, "v").status().code(),
            absl::StatusCode::kResourceExhausted);
  // So is a tuple whose elements fit one by one but not together.
  EXPECT_EQ(CheckedBytes(Shape::MakeTuple({Shape::MakeArray(F32, {200}), Shape::MakeArray(F32, {200})}),
                         1000, "v")
                .status()
                .code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(CheckedBytes(Shape::MakeArray(F32, {-1}), 1000, "v").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(RequestLimitsTest, LiteralFromWireChecksBeforeAllocating) {
  xla::LiteralProto proto = *LiteralToProto(Literal::CreateR1<float>({1, 2, 3}));
  EXPECT_EQ(LiteralFromWire(proto, 1000, "argument 0")->ToStringWithoutShape(), "{1, 2, 3}");
  xla::LiteralProto big = proto;
  big.mutable_shape()->set_dimensions(0, int64_t{1} << 50);
  EXPECT_EQ(LiteralFromWire(big, 1000, "argument 0").status().code(),
            absl::StatusCode::kResourceExhausted);
  xla::LiteralProto shapeless = proto;
  shapeless.clear_shape();
  EXPECT_THAT(std::string(LiteralFromWire(shapeless, 1000, "argument 1").status().message()),
              HasSubstr("argument 1 has no shape"));
  xla::LiteralProto short_data = proto;
  short_data.mutable_f32s()->RemoveLast();
  EXPECT_EQ(LiteralFromWire(short_data, 1000, "argument 2").status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace service
}  // namespace tessera
