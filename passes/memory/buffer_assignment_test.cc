#include "passes/memory/buffer_assignment.h"

#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "passes/memory/arena_checker.h"
#include "passes/memory/copy_insertion.h"
#include "passes/pass_test_util.h"
#include "passes/schedule/hlo_scheduler.h"

namespace tessera {
namespace {

using pass_test::Parse;

class BufferAssignmentTest : public ::testing::Test {
 protected:
  // Copy insertion, scheduling, assignment, and the arena check.
  void Assign(absl::string_view text, BufferAssignmentOptions options = {}) {
    module_ = Parse(text);
    ASSERT_NE(module_, nullptr);
    CopyInsertion copies;
    ASSERT_TRUE(copies.Run(module_.get()).ok());
    HloScheduler scheduler;
    ASSERT_TRUE(scheduler.Run(module_.get()).ok());
    absl::StatusOr<BufferAssignment> assignment = AssignBuffers(*module_, options);
    ASSERT_TRUE(assignment.ok()) << assignment.status();
    assignment_ = std::make_unique<BufferAssignment>(*std::move(assignment));
    absl::Status checked = CheckAssignmentOnArena(*module_, *assignment_, 2, 3);
    EXPECT_TRUE(checked.ok()) << checked << "\n" << assignment_->ToString();
  }
  const HloInstruction* I(absl::string_view name) {
    for (const HloComputation* computation : module_->computations()) {
      for (const HloInstruction* instruction : computation->instructions()) {
        if (instruction->name() == name) return instruction;
      }
    }
    ADD_FAILURE() << "no " << name;
    return nullptr;
  }
  BufferSlice Slice(absl::string_view name, ShapeIndex index = {}) {
    absl::StatusOr<BufferSlice> slice = assignment_->GetSlice(I(name), index);
    EXPECT_TRUE(slice.ok()) << slice.status();
    return slice.ok() ? *slice : BufferSlice();
  }
  const BufferAllocation& AllocationOf(absl::string_view name, ShapeIndex index = {}) {
    return assignment_->allocations()[Slice(name, index).allocation];
  }

  std::unique_ptr<HloModule> module_;
  std::unique_ptr<BufferAssignment> assignment_;
};

TEST_F(BufferAssignmentTest, ElementwiseChainWritesInPlace) {
  ASSERT_NO_FATAL_FAILURE(Assign(R"(HloModule m
ENTRY main {
  p = f32[64] parameter(0)
  e = f32[64] exponential(p)
  n = f32[64] negate(e)
  ROOT t = f32[64] tanh(n)
})"));
  // e, n and t replace each other; the chain lives in the output.
  EXPECT_EQ(Slice("e"), Slice("n"));
  EXPECT_EQ(Slice("n"), Slice("t"));
  EXPECT_EQ(AllocationOf("t").kind, BufferAllocation::Kind::kOutput);
  EXPECT_EQ(AllocationOf("p").kind, BufferAllocation::Kind::kParameter);
  EXPECT_TRUE(AllocationOf("p").read_only());
  EXPECT_NE(Slice("p").allocation, Slice("e").allocation);  // the argument is not overwritten
  EXPECT_EQ(assignment_->in_place_count(), 2);
  EXPECT_EQ(assignment_->temp_bytes(), 0);
  EXPECT_EQ(assignment_->naive_bytes(), 4 * 256);
  EXPECT_EQ(assignment_->total_bytes(), 2 * 256);
}

TEST_F(BufferAssignmentTest, NoReuseOfAnOperandStillLive) {
  ASSERT_NO_FATAL_FAILURE(Assign(R"(HloModule m
ENTRY main {
  p = f32[64] parameter(0)
  a = f32[64] exponential(p)
  b = f32[64] negate(a)
  c = f32[64] add(a, b)
  ROOT d = f32[64] multiply(c, a)
})"));
  EXPECT_FALSE(Slice("a").Overlaps(Slice("b")));
  EXPECT_FALSE(Slice("a").Overlaps(Slice("c")));
  // b dies at c: c may take its place (or a's at d's time).
  EXPECT_EQ(assignment_->in_place_count(), 2);
}

TEST_F(BufferAssignmentTest, NoInPlaceForOpsThatMoveElements) {
  ASSERT_NO_FATAL_FAILURE(Assign(R"(HloModule m
ENTRY main {
  p = f32[8,8] parameter(0)
  e = f32[8,8] exponential(p)
  t = f32[8,8] transpose(e), dimensions={1,0}
  r = f32[8,8] reverse(t), dimensions={0}
  ROOT n = f32[8,8] negate(r)
})"));
  EXPECT_FALSE(Slice("e").Overlaps(Slice("t")));
  EXPECT_FALSE(Slice("t").Overlaps(Slice("r")));
  EXPECT_EQ(Slice("r"), Slice("n"));
}

TEST_F(BufferAssignmentTest, DynamicUpdateSliceInPlace) {
  ASSERT_NO_FATAL_FAILURE(Assign(R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY main {
  p = f32[256] parameter(0)
  u = f32[4] parameter(1)
  i = s32[] parameter(2)
  big = f32[256] sine(p)
  d = f32[256] dynamic-update-slice(big, u, i)
  zero = f32[] constant(0)
  ROOT r = f32[] reduce(d, zero), dimensions={0}, to_apply=add
})"));
  EXPECT_EQ(Slice("big"), Slice("d"));
  EXPECT_EQ(AllocationOf("d").kind, BufferAllocation::Kind::kTemp);
  EXPECT_EQ(AllocationOf("d").size, 1024);
}

TEST_F(BufferAssignmentTest, LoopStateSharesOneSliceWithInitAndBodyResult) {
  ASSERT_NO_FATAL_FAILURE(Assign(R"(HloModule m
body {
  s = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  inc = s32[] add(i, one)
  x = f32[64] get-tuple-element(s), index=1
  m = f32[64] multiply(x, x)
  y = f32[64] tanh(m)
  ROOT next = (s32[], f32[64]) tuple(inc, y)
}
cond {
  c = (s32[], f32[64]) parameter(0)
  ci = s32[] get-tuple-element(c), index=0
  lim = s32[] constant(5)
  ROOT lt = pred[] compare(ci, lim), direction=LT
}
ENTRY main {
  zero = s32[] parameter(1)
  a = f32[64] parameter(0)
  n = f32[64] negate(a)
  init = (s32[], f32[64]) tuple(zero, n)
  w = (s32[], f32[64]) while(init), condition=cond, body=body
  g = f32[64] get-tuple-element(w), index=1
  ROOT r = f32[64] sine(g)
})"));
  const BufferSlice state = Slice("w", {1});
  EXPECT_EQ(Slice("n"), state);
  EXPECT_EQ(Slice("y"), state);
  EXPECT_EQ(Slice("x"), state);
  // The body's temporary (m) replaces the old state in place too.
  EXPECT_EQ(Slice("m"), state);
  // The counter's init is a parameter: copied, then updated in place.
  EXPECT_NE(Slice("w", {0}).allocation, Slice("zero").allocation);
  EXPECT_EQ(Slice("inc"), Slice("w", {0}));
}

TEST_F(BufferAssignmentTest, ConditionalBranchesWriteTheResultSlice) {
  ASSERT_NO_FATAL_FAILURE(Assign(R"(HloModule m
on_true {
  tp = f32[16] parameter(0)
  tc = f32[16] cosine(tp)
  ROOT tr = f32[16] multiply(tc, tc)
}
on_false {
  fp = f32[16] parameter(0)
  ROOT fr = f32[16] sine(fp)
}
ENTRY main {
  pr = pred[] parameter(0)
  a = f32[16] parameter(1)
  b = f32[16] exponential(a)
  k = f32[16] conditional(pr, b, b), true_computation=on_true, false_computation=on_false
  ROOT r = f32[16] negate(k)
})"));
  EXPECT_EQ(Slice("tr"), Slice("k"));
  EXPECT_EQ(Slice("fr"), Slice("k"));
  EXPECT_FALSE(Slice("b").Overlaps(Slice("tc")));
}

TEST_F(BufferAssignmentTest, ConstantsAreReadOnlyAndShared) {
  ASSERT_NO_FATAL_FAILURE(Assign(R"(HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  c = f32[4] constant({1, 2, 3, 4})
  d = f32[4] constant({5, 6, 7, 8})
  a = f32[4] add(p, c)
  ROOT m = f32[4] multiply(a, d)
})"));
  EXPECT_EQ(AllocationOf("c").kind, BufferAllocation::Kind::kConstants);
  EXPECT_EQ(Slice("c").allocation, Slice("d").allocation);
  EXPECT_FALSE(Slice("c").Overlaps(Slice("d")));
  EXPECT_TRUE(AllocationOf("c").read_only());
  // Neither constant is ever written over.
  EXPECT_NE(Slice("a").allocation, Slice("c").allocation);
  const std::string text = assignment_->ToString();
  EXPECT_TRUE(absl::StrContains(text, "constants, 32 bytes, read-only")) << text;
}

constexpr absl::string_view kDonation = R"(HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }
ENTRY main {
  p = f32[64] parameter(0)
  q = f32[64] parameter(1)
  e = f32[64] exponential(p)
  n = f32[64] add(e, q)
  ROOT t = (f32[64], f32[64]) tuple(n, e)
})";

TEST_F(BufferAssignmentTest, DonatedParameterHoldsItsOutput) {
  ASSERT_NO_FATAL_FAILURE(Assign(kDonation));
  const BufferAllocation& allocation = AllocationOf("n");
  EXPECT_EQ(allocation.kind, BufferAllocation::Kind::kParameter);
  EXPECT_EQ(allocation.parameter_number, 0);
  EXPECT_TRUE(allocation.donated);
  EXPECT_FALSE(allocation.read_only());
  EXPECT_EQ(Slice("p"), Slice("n"));
  const std::string text = assignment_->ToString();
  EXPECT_TRUE(absl::StrContains(text, "parameter 0 {}, 256 bytes, donated to output {0}")) << text;
  // Without the donation the output gets its own allocation.
  BufferAssignmentOptions options;
  options.use_donation = false;
  ASSERT_NO_FATAL_FAILURE(Assign(kDonation, options));
  EXPECT_EQ(AllocationOf("n").kind, BufferAllocation::Kind::kOutput);
}

constexpr absl::string_view kLateRead = R"(HloModule m, input_output_alias={ {0}: (0, {}, %s) }
ENTRY main {
  p = f32[64] parameter(0)
  n = f32[64] negate(p)
  r = f32[64] add(n, p)
  ROOT t = (f32[64], f32[64]) tuple(n, r)
})";

TEST_F(BufferAssignmentTest, DonationNotUsedWhenTheParameterIsReadLater) {
  std::string may = std::string(kLateRead);
  may.replace(may.find("%s"), 2, "may-alias");
  ASSERT_NO_FATAL_FAILURE(Assign(may));
  // r reads p after n is made: n cannot live in p.
  EXPECT_EQ(AllocationOf("n").kind, BufferAllocation::Kind::kOutput);
  EXPECT_TRUE(absl::StrContains(assignment_->ToString(), "note: donation parameter 0 {} -> output {0} not used"));

  std::string must = std::string(kLateRead);
  must.replace(must.find("%s"), 2, "must-alias");
  auto module = Parse(must);
  CopyInsertion copies;
  ASSERT_TRUE(copies.Run(module.get()).ok());
  HloScheduler scheduler;
  ASSERT_TRUE(scheduler.Run(module.get()).ok());
  absl::StatusOr<BufferAssignment> assignment = AssignBuffers(*module);
  EXPECT_FALSE(assignment.ok());
  EXPECT_TRUE(absl::StrContains(assignment.status().message(), "must-alias")) << assignment.status();
}

TEST_F(BufferAssignmentTest, BufferDonorTakesAMatchingOutput) {
  ASSERT_NO_FATAL_FAILURE(Assign(R"(HloModule m, buffer_donor={ (1, {}) }
ENTRY main {
  p = f32[32] parameter(0)
  q = f32[32] parameter(1)
  s = f32[32] subtract(q, p)
  ROOT e = f32[32] exponential(s)
})"));
  EXPECT_EQ(AllocationOf("e").kind, BufferAllocation::Kind::kParameter);
  EXPECT_EQ(AllocationOf("e").parameter_number, 1);
  EXPECT_EQ(Slice("e"), Slice("q"));
}

TEST_F(BufferAssignmentTest, ToStringListsAllocationsValuesAndSummary) {
  ASSERT_NO_FATAL_FAILURE(Assign(R"(HloModule m
ENTRY main {
  p = f32[64] parameter(0)
  a = f32[64] exponential(p)
  b = f32[64] negate(p)
  ROOT c = f32[64] add(a, b)
})"));
  const std::string text = assignment_->ToString();
  EXPECT_TRUE(absl::StrContains(text, "BufferAssignment of module m: 3 allocations")) << text;
  EXPECT_TRUE(absl::StrContains(text, "allocation 0: parameter 0 {}, 256 bytes, read-only"))
      << text;
  EXPECT_TRUE(absl::StrContains(text, "allocation 1: output {}, 256 bytes")) << text;
  EXPECT_TRUE(absl::StrContains(text, "allocation 2: temp, 256 bytes")) << text;
  EXPECT_TRUE(absl::StrContains(text, "a0[0, 256) %p f32[64]")) << text;
  EXPECT_TRUE(absl::StrContains(
      text, "summary: peak 768 bytes (parameters 256, outputs 256, constants 0, temp 256), sum of "
            "buffers 1024 bytes, ratio 0.750"))
      << text;
}

TEST_F(BufferAssignmentTest, HeapAlgorithmsAndAlignment) {
  constexpr absl::string_view kText = R"(HloModule m
ENTRY main {
  p = f32[3] parameter(0)
  a = f32[3] exponential(p)
  one = f32[] constant(1)
  b = f32[5] broadcast(one), dimensions={}
  c = f32[3] sine(a)
  d = f32[3] cosine(a)
  e = f32[3] add(c, d)
  ROOT t = (f32[3], f32[5]) tuple(e, b)
})";
  for (BufferAssignmentOptions::Heap heap :
       {BufferAssignmentOptions::Heap::kBest, BufferAssignmentOptions::Heap::kBestFit,
        BufferAssignmentOptions::Heap::kFirstFit}) {
    for (int64_t alignment : {1, 16, 64}) {
      BufferAssignmentOptions options;
      options.heap = heap;
      options.alignment = alignment;
      ASSERT_NO_FATAL_FAILURE(Assign(kText, options));
      for (const auto& value : assignment_->dataflow().values()) {
        if (assignment_->HasSlice(*value)) {
          EXPECT_EQ(assignment_->GetValueSlice(*value).offset % alignment, 0);
        }
      }
    }
  }
}

TEST_F(BufferAssignmentTest, FusionsWriteInPlaceWhereTheirBodiesAllow) {
  ASSERT_NO_FATAL_FAILURE(Assign(R"(HloModule m
sum {
  l = f32[] parameter(0)
  r = f32[] parameter(1)
  ROOT lr = f32[] add(l, r)
}
elementwise {
  e0 = f32[128] parameter(0)
  e1 = f32[128] parameter(1)
  em = f32[128] multiply(e0, e1)
  ROOT et = f32[128] tanh(em)
}
two_outputs {
  t0 = f32[128] parameter(0)
  tz = f32[] constant(0)
  tr = f32[] reduce(t0, tz), dimensions={0}, to_apply=sum
  tn = f32[128] negate(t0)
  ROOT tt = (f32[], f32[128]) tuple(tr, tn)
}
ENTRY main {
  p = f32[128] parameter(0)
  q = f32[128] parameter(1)
  a = f32[128] exponential(p)
  b = f32[128] sine(q)
  f = f32[128] fusion(a, b), kind=kLoop, calls=elementwise
  g = (f32[], f32[128]) fusion(f), kind=kInput, calls=two_outputs
  g0 = f32[] get-tuple-element(g), index=0
  g1 = f32[128] get-tuple-element(g), index=1
  s = f32[128] broadcast(g0), dimensions={}
  ROOT out = f32[128] add(g1, s)
})"));
  // The elementwise fusion takes a's (or b's) place.
  EXPECT_TRUE(Slice("f") == Slice("a") || Slice("f") == Slice("b"));
  // The reduction reads all of f: the multi-output fusion cannot write
  // over it.
  EXPECT_FALSE(Slice("g", {1}).Overlaps(Slice("f")));
  EXPECT_FALSE(Slice("g", {0}).Overlaps(Slice("g", {1})));
}

TEST_F(BufferAssignmentTest, TuplesTokensAndEmptyArrays) {
  ASSERT_NO_FATAL_FAILURE(Assign(R"(HloModule m
ENTRY main {
  p = (f32[8], (s32[2], f32[0])) parameter(0)
  x = f32[8] get-tuple-element(p), index=0
  inner = (s32[2], f32[0]) get-tuple-element(p), index=1
  i = s32[2] get-tuple-element(inner), index=0
  z = f32[0] get-tuple-element(inner), index=1
  tok = token[] after-all()
  ob = (f32[8], s32[2]) opt-barrier((f32[8], s32[2]) tuple(x, i))
  y = f32[8] get-tuple-element(ob), index=0
  n = f32[8] negate(y)
  zn = f32[0] negate(z)
  ROOT t = (f32[8], f32[0], token[]) tuple(n, zn, tok)
})"));
  EXPECT_EQ(AllocationOf("p", {1, 0}).kind, BufferAllocation::Kind::kParameter);
  EXPECT_EQ(AllocationOf("p", {1, 0}).parameter_index, (ShapeIndex{1, 0}));
  EXPECT_EQ(Slice("y"), Slice("p", {0}));
  EXPECT_EQ(Slice("zn").size, 0);
}

TEST(BufferAssignmentErrorsTest, NeedsASchedule) {
  auto module = Parse(R"(HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
})");
  absl::StatusOr<BufferAssignment> assignment = AssignBuffers(*module);
  EXPECT_FALSE(assignment.ok());
  EXPECT_TRUE(absl::StrContains(assignment.status().message(), "not scheduled"));
  HloScheduler scheduler;
  ASSERT_TRUE(scheduler.Run(module.get()).ok());
  EXPECT_TRUE(AssignBuffers(*module).ok());
  // A schedule made stale by a later change is refused.
  HloComputation* entry = module->entry_computation();
  entry->AddInstruction(HloInstruction::CreateUnary(entry->root_instruction()->shape(),
                                                    HloOpcode::kSin,
                                                    entry->parameter_instruction(0)));
  assignment = AssignBuffers(*module);
  EXPECT_FALSE(assignment.ok());
  EXPECT_TRUE(absl::StrContains(assignment.status().message(), "stale")) << assignment.status();
}

TEST(BufferAssignmentErrorsTest, OutputThatIsAParameterNeedsCopyInsertion) {
  auto module = Parse(R"(HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  n = f32[4] negate(p)
  ROOT t = (f32[4], f32[4]) tuple(p, n)
})");
  HloScheduler scheduler;
  ASSERT_TRUE(scheduler.Run(module.get()).ok());
  absl::StatusOr<BufferAssignment> assignment = AssignBuffers(*module);
  EXPECT_FALSE(assignment.ok());
  EXPECT_TRUE(absl::StrContains(assignment.status().message(), "copy-insertion"));
}

}  // namespace
}  // namespace tessera
