// Literals to dense buffers and back: row-major copies, other layouts
// (transposed on the way), tuple leaves, and layouts that cannot be dense.
#include "backends/common/literal_buffers.h"

#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/parser/hlo_parser.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

// A shape from HLO text, e.g. "f32[2,3]{0,1}".
Shape S(absl::string_view text) { return *ParseShape(text); }

TEST(LiteralBuffersTest, RowMajorIsAPlainCopy) {
  Literal literal = Literal::CreateFromVector<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  const Shape shape = S("s32[2,3]{1,0}");
  std::vector<int32_t> buffer(6);
  CopyLiteralToBuffer(literal, shape, buffer.data());
  EXPECT_EQ(buffer, (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
  Literal back(shape);
  CopyBufferToLiteral(buffer.data(), shape, &back);
  EXPECT_EQ(back, literal);
}

TEST(LiteralBuffersTest, ColumnMajorTransposes) {
  Literal literal = Literal::CreateFromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  const Shape shape = S("f32[2,3]{0,1}");
  std::vector<float> buffer(6);
  CopyLiteralToBuffer(literal, shape, buffer.data());
  EXPECT_EQ(buffer, (std::vector<float>{1, 4, 2, 5, 3, 6}));
  Literal back(shape);
  CopyBufferToLiteral(buffer.data(), shape, &back);
  EXPECT_EQ(back, literal);
}

TEST(LiteralBuffersTest, RankThreePermutationRoundTrips) {
  std::vector<int16_t> values(2 * 3 * 4);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int16_t>(i);
  Literal literal = Literal::CreateFromVector<int16_t>({2, 3, 4}, values);
  const Shape shape = S("s16[2,3,4]{1,2,0}");
  std::vector<int16_t> buffer(values.size());
  CopyLiteralToBuffer(literal, shape, buffer.data());
  // Dimension 1 is minor, then 2, then 0: element (i, j, k) at i*12 + k*3 + j.
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      for (int k = 0; k < 4; ++k) EXPECT_EQ(buffer[i * 12 + k * 3 + j], i * 12 + j * 4 + k);
    }
  }
  Literal back(shape);
  CopyBufferToLiteral(buffer.data(), shape, &back);
  EXPECT_EQ(back, literal);
}

TEST(LiteralBuffersTest, ZeroSizedAndScalar) {
  Literal empty(S("f32[0,3]{0,1}"));
  CopyLiteralToBuffer(empty, empty.shape(), nullptr);
  Literal scalar = Literal::CreateR0<double>(2.5);
  double buffer = 0;
  CopyLiteralToBuffer(scalar, scalar.shape(), &buffer);
  EXPECT_EQ(buffer, 2.5);
}

TEST(LiteralBuffersTest, ArrayLeavesSkipTokensAndEmptyTuples) {
  Shape shape = Shape::MakeTuple({Shape::MakeArray(F32, {2}), Shape::MakeToken(),
                                  Shape::MakeTuple({}),
                                  Shape::MakeTuple({Shape::MakeArray(S32, {}),
                                                    Shape::MakeArray(PRED, {3})})});
  std::vector<const Shape*> leaves = ArrayLeafShapes(shape);
  ASSERT_EQ(leaves.size(), 3u);
  EXPECT_EQ(leaves[0]->ToString(), "f32[2]");
  EXPECT_EQ(leaves[1]->ToString(), "s32[]");
  EXPECT_EQ(leaves[2]->ToString(), "pred[3]");
  Literal literal(shape);
  EXPECT_EQ(ArrayLeaves(literal).size(), 3u);
  std::vector<Literal*> mutable_leaves = MutableArrayLeaves(&literal);
  ASSERT_EQ(mutable_leaves.size(), 3u);
  mutable_leaves[1]->data<int32_t>()[0] = 7;
  EXPECT_EQ(literal.tuple_element(3).tuple_element(0).data<int32_t>()[0], 7);
}

TEST(LiteralBuffersTest, LayoutsThatCannotBeDense) {
  EXPECT_TRUE(CheckDenseLayouts(S("f32[2,3]{0,1}")).ok());
  EXPECT_TRUE(CheckDenseLayouts(Shape::MakeArray(F32, {2, 3})).ok());
  Shape tiled = S("f32[8,128]{1,0}");
  tiled.mutable_layout()->tiles.push_back(Tile{{8, 128}});
  absl::Status status = CheckDenseLayouts(Shape::MakeTuple({Shape::MakeArray(F32, {1}), tiled}));
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(status.message(), HasSubstr("array {1} f32[8,128]{1,0:T(8,128)}: tiled layouts"));
  for (std::vector<int64_t> minor_to_major : {std::vector<int64_t>{0, 0}, {0}, {2, 0}}) {
    Shape shape = S("f32[2,3]{1,0}");
    shape.mutable_layout()->minor_to_major = minor_to_major;
    EXPECT_THAT(CheckDenseLayouts(shape).message(), HasSubstr("not a permutation"));
  }
  Shape packed = S("s8[4]{0}");
  packed.mutable_layout()->element_size_in_bits = 4;
  EXPECT_THAT(CheckDenseLayouts(packed).message(), HasSubstr("packed element sizes"));
}

}  // namespace
}  // namespace tessera
