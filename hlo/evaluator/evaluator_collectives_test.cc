// Collectives on one device (one replica, one partition): all-reduce,
// all-gather, reduce-scatter, all-to-all and collective-broadcast return
// their operands, collective-permute copies or zero-fills, replica-id and
// partition-id are 0, and more than one participant is an error.
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator_test_util.h"

namespace tessera {
namespace evaluator_test {
namespace {

constexpr absl::string_view kAdd = R"(
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
)";

TEST(EvaluatorCollectivesTest, AllReduceOnOneReplicaIsTheIdentity) {
  const Literal x = L("f32[3]", "{1, -2, nan}");
  EXPECT_EVAL(EvaluateRoot("f32[3] all-reduce(p0), replica_groups={}, to_apply=add", {x}, kAdd), x);
  EXPECT_EVAL(EvaluateRoot("f32[3] all-reduce(p0), replica_groups={{0}}, to_apply=add", {x}, kAdd),
              x);
  // Variadic (tuple) all-reduce.
  EXPECT_EVAL(EvaluateRoot("(f32[3], f32[1]) all-reduce(p0, p1), replica_groups={}, to_apply=add",
                           {x, L("f32[1]", "{5}")}, kAdd),
              Literal::MakeTuple({x, L("f32[1]", "{5}")}));
}

TEST(EvaluatorCollectivesTest, AllGatherReduceScatterAllToAllOnOneReplica) {
  const Literal x = L("s32[2,2]", "{ { 1, 2 }, { 3, 4 } }");
  EXPECT_EVAL(EvaluateRoot("s32[2,2] all-gather(p0), dimensions={0}, replica_groups={{0}}", {x}), x);
  EXPECT_EVAL(EvaluateRoot("f32[2] reduce-scatter(p0), dimensions={0}, replica_groups={{0}}, "
                           "to_apply=add",
                           {L("f32[2]", "{1.5, 2}")}, kAdd),
              L("f32[2]", "{1.5, 2}"));
  EXPECT_EVAL(EvaluateRoot("s32[2,2] all-to-all(p0), dimensions={1}, replica_groups={{0}}", {x}),
              x);
  EXPECT_EVAL(EvaluateRoot("(s32[2,2], s32[2,2]) all-to-all(p0, p0), replica_groups={{0}}", {x}),
              Literal::MakeTuple({x, x}));
}

TEST(EvaluatorCollectivesTest, CollectivePermuteCopiesOrZeroFills) {
  const Literal x = L("f32[2]", "{3, -4}");
  EXPECT_EVAL(EvaluateRoot("f32[2] collective-permute(p0), source_target_pairs={{0,0}}", {x}), x);
  // Device 0 receives from nobody: zeros.
  EXPECT_EVAL(EvaluateRoot("f32[2] collective-permute(p0), source_target_pairs={{0,1}}", {x}),
              L("f32[2]", "{0, 0}"));
  EXPECT_EVAL(EvaluateRoot("f32[2] collective-permute(p0), source_target_pairs={}", {x}),
              L("f32[2]", "{0, 0}"));
}

TEST(EvaluatorCollectivesTest, ReplicaAndPartitionIdsAreZero) {
  EXPECT_EVAL(EvaluateRoot("u32[] replica-id()"), L("u32[]", "0"));
  EXPECT_EVAL(EvaluateRoot("u32[] partition-id()"), L("u32[]", "0"));
}

TEST(EvaluatorCollectivesTest, AsyncCollectivePairs) {
  constexpr absl::string_view kModule = R"(
HloModule m

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  x = f32[2] parameter(0)
  ars = f32[2] all-reduce-start(x), replica_groups={}, to_apply=add
  ard = f32[2] all-reduce-done(ars)
  cps = (f32[2], f32[2], u32[], u32[]) collective-permute-start(ard), source_target_pairs={{0,0}}
  ROOT cpd = f32[2] collective-permute-done(cps)
}
)";
  EXPECT_EVAL(ParseAndEvaluate(kModule, {L("f32[2]", "{1, 2}")}), L("f32[2]", "{1, 2}"));
}

TEST(EvaluatorCollectivesTest, AllGatherStartDoneAndCollectiveBroadcast) {
  constexpr absl::string_view kModule = R"(
HloModule m

ENTRY main {
  x = s32[2] parameter(0)
  ags = (s32[2], s32[2]) all-gather-start(x), dimensions={0}, replica_groups={{0}}
  agd = s32[2] all-gather-done(ags)
  ROOT b = s32[2] collective-broadcast(agd), replica_groups={{0}}
}
)";
  EXPECT_EVAL(ParseAndEvaluate(kModule, {L("s32[2]", "{4, -5}")}), L("s32[2]", "{4, -5}"));
}

TEST(EvaluatorCollectivesTest, MoreThanOneParticipantIsUnsupported) {
  absl::StatusOr<Literal> result = EvaluateRoot(
      "f32[2] all-reduce(p0), replica_groups={{0,1}}, to_apply=add", {L("f32[2]", "{1, 2}")}, kAdd);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(result.status().message().find("%r: all-reduce over 2 participants"),
            std::string::npos)
      << result.status();
  // A module compiled for two replicas, with implicit groups.
  result = ParseAndEvaluate(R"(
HloModule m, replica_count=2

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  x = f32[2] parameter(0)
  ROOT r = f32[2] all-reduce(x), replica_groups={}, to_apply=add
}
)",
                            {L("f32[2]", "{1, 2}")});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("participants"), std::string::npos) << result.status();
}

}  // namespace
}  // namespace evaluator_test
}  // namespace tessera
