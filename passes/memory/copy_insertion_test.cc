#include "passes/memory/copy_insertion.h"

#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "hlo/analysis/hlo_verifier.h"
#include "hlo/parser/hlo_printer.h"
#include "passes/memory/buffer_assignment.h"
#include "passes/pass_test_util.h"
#include "passes/schedule/hlo_scheduler.h"

namespace tessera {
namespace {

using pass_test::Parse;
using pass_test::RunPassKeepingResults;

int CountCopies(const HloComputation& computation) {
  int count = 0;
  for (const HloInstruction* instruction : computation.instructions()) {
    count += instruction->opcode() == HloOpcode::kCopy;
  }
  return count;
}

const HloComputation* Computation(const HloModule& module, absl::string_view name) {
  const HloComputation* computation = module.GetComputationWithName(name);
  EXPECT_NE(computation, nullptr) << name;
  return computation;
}

const HloInstruction* Find(const HloComputation& computation, absl::string_view name) {
  for (const HloInstruction* instruction : computation.instructions()) {
    if (instruction->name() == name) return instruction;
  }
  ADD_FAILURE() << "no " << name;
  return nullptr;
}

absl::Status ScheduleAndAssign(HloModule& module) {
  HloScheduler scheduler;
  absl::StatusOr<bool> scheduled = scheduler.Run(&module);
  if (!scheduled.ok()) return scheduled.status();
  return AssignBuffers(module).status();
}

// A loop over (counter, x) whose init is a parameter and a constant.
constexpr absl::string_view kLoop = R"(HloModule m
body {
  s = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  inc = s32[] add(i, one)
  x = f32[8] get-tuple-element(s), index=1
  e = f32[8] sine(x)
  y = f32[8] tanh(e)
  ROOT next = (s32[], f32[8]) tuple(inc, y)
}
cond {
  c = (s32[], f32[8]) parameter(0)
  ci = s32[] get-tuple-element(c), index=0
  lim = s32[] constant(4)
  ROOT lt = pred[] compare(ci, lim), direction=LT
}
ENTRY main {
  zero = s32[] constant(0)
  a = f32[8] parameter(0)
  init = (s32[], f32[8]) tuple(zero, a)
  w = (s32[], f32[8]) while(init), condition=cond, body=body
  ROOT out = f32[8] get-tuple-element(w), index=1
})";

TEST(CopyInsertionTest, LoopInitParameterAndConstantAreCopiedBodyUpdatesInPlace) {
  auto module = Parse(kLoop);
  // Without copies the loop would write over the caller's argument.
  {
    auto unsafe = Parse(kLoop);
    absl::Status status = ScheduleAndAssign(*unsafe);
    EXPECT_FALSE(status.ok());
    EXPECT_TRUE(absl::StrContains(status.message(), "copy-insertion")) << status;
  }
  CopyInsertion pass;
  EXPECT_TRUE(*RunPassKeepingResults(pass, *module));
  EXPECT_EQ(CountCopies(*module->entry_computation()), 2);
  // The body makes the next state from the old one elementwise: in place,
  // no copy.
  EXPECT_EQ(CountCopies(*Computation(*module, "body")), 0);
  EXPECT_TRUE(ScheduleAndAssign(*module).ok());
  // Idempotent.
  CopyInsertion again;
  EXPECT_FALSE(*again.Run(module.get()));
}

TEST(CopyInsertionTest, InitReadAfterTheLoopIsCopied) {
  auto module = Parse(R"(HloModule m
body {
  s = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  inc = s32[] add(i, one)
  x = f32[8] get-tuple-element(s), index=1
  y = f32[8] tanh(x)
  ROOT next = (s32[], f32[8]) tuple(inc, y)
}
cond {
  c = (s32[], f32[8]) parameter(0)
  ci = s32[] get-tuple-element(c), index=0
  lim = s32[] constant(4)
  ROOT lt = pred[] compare(ci, lim), direction=LT
}
ENTRY main {
  a = f32[8] parameter(0)
  zero = s32[] parameter(1)
  n = f32[8] negate(a)
  start = s32[] add(zero, zero)
  init = (s32[], f32[8]) tuple(start, n)
  w = (s32[], f32[8]) while(init), condition=cond, body=body
  g = f32[8] get-tuple-element(w), index=1
  before = f32[8] sine(n)
  ROOT out = f32[8] add(g, n)
})");
  CopyInsertion pass;
  EXPECT_TRUE(*RunPassKeepingResults(pass, *module));
  const HloComputation* entry = module->entry_computation();
  // n is read after the loop: copied.  The counter is not: no copy.
  EXPECT_EQ(CountCopies(*entry), 1);
  const HloInstruction* loop = Find(*entry, "w");
  EXPECT_EQ(loop->operand(0)->operand(1)->opcode(), HloOpcode::kCopy);
  EXPECT_EQ(loop->operand(0)->operand(0)->name(), "start");
  EXPECT_TRUE(ScheduleAndAssign(*module).ok());
}

// A scan and its backward scan, as JAX's grad of lax.scan makes them: the
// forward loop stacks a row per step into buffers that start as zeros (one
// broadcast for both), the backward loop takes those stacks and sums a
// product per step into an accumulator (acc + a x b, a kOutput fusion).
constexpr absl::string_view kScanAndBackward = R"(HloModule m
zeros_computation {
  c = f32[] constant(0)
  ROOT b = f32[4,8] broadcast(c), dimensions={}
}
fcond {
  s = (s32[], f32[1,8], f32[4,8], f32[4,8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}
fbody {
  s = (s32[], f32[1,8], f32[4,8], f32[4,8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  h = f32[1,8] get-tuple-element(s), index=1
  hs = f32[4,8] get-tuple-element(s), index=2
  ts = f32[4,8] get-tuple-element(s), index=3
  t = f32[1,8] tanh(h)
  z = s32[] constant(0)
  hs2 = f32[4,8] dynamic-update-slice(hs, h, i, z)
  ts2 = f32[4,8] dynamic-update-slice(ts, t, i, z)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT next = (s32[], f32[1,8], f32[4,8], f32[4,8]) tuple(i2, t, hs2, ts2)
}
accumulate {
  a = f32[1,8] parameter(0)
  b = f32[1,8] parameter(1)
  acc = f32[8,8] parameter(2)
  d = f32[8,8] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  ROOT sum = f32[8,8] add(acc, d)
}
bcond {
  s = (s32[], f32[8,8], f32[4,8], f32[4,8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}
bbody {
  s = (s32[], f32[8,8], f32[4,8], f32[4,8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = f32[8,8] get-tuple-element(s), index=1
  hs = f32[4,8] get-tuple-element(s), index=2
  ts = f32[4,8] get-tuple-element(s), index=3
  z = s32[] constant(0)
  hr = f32[1,8] dynamic-slice(hs, i, z), dynamic_slice_sizes={1,8}
  tr = f32[1,8] dynamic-slice(ts, i, z), dynamic_slice_sizes={1,8}
  acc2 = f32[8,8] fusion(hr, tr, acc), kind=kOutput, calls=accumulate
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT next = (s32[], f32[8,8], f32[4,8], f32[4,8]) tuple(i2, acc2, hs, ts)
}
ENTRY main {
  x = f32[1,8] parameter(0)
  zeros = f32[4,8] fusion(), kind=kLoop, calls=zeros_computation
  z0 = s32[] constant(0)
  init = (s32[], f32[1,8], f32[4,8], f32[4,8]) tuple(z0, x, zeros, zeros)
  fw = (s32[], f32[1,8], f32[4,8], f32[4,8]) while(init), condition=fcond, body=fbody
  hs = f32[4,8] get-tuple-element(fw), index=2
  ts = f32[4,8] get-tuple-element(fw), index=3
  c0 = f32[] constant(0)
  acc0 = f32[8,8] broadcast(c0), dimensions={}
  z1 = s32[] constant(0)
  binit = (s32[], f32[8,8], f32[4,8], f32[4,8]) tuple(z1, acc0, hs, ts)
  bw = (s32[], f32[8,8], f32[4,8], f32[4,8]) while(binit), condition=bcond, body=bbody
  sum = f32[8,8] get-tuple-element(bw), index=1
  last = f32[1,8] get-tuple-element(fw), index=1
  ROOT out = (f32[8,8], f32[1,8]) tuple(sum, last)
})";

TEST(CopyInsertionTest, ScanAndItsBackwardScanShareTheirStacks) {
  auto module = Parse(kScanAndBackward);
  CopyInsertion pass;
  EXPECT_TRUE(*RunPassKeepingResults(pass, *module));
  const HloComputation* entry = module->entry_computation();
  // Copied: the two counters (constants) and x (a parameter).
  EXPECT_EQ(CountCopies(*entry), 3) << PrintHloModule(*module);
  const HloInstruction* forward_init = Find(*entry, "fw")->operand(0);
  // The zeros taken twice: the second is a broadcast made again, not a copy.
  const HloInstruction* first = forward_init->operand(2);
  const HloInstruction* second = forward_init->operand(3);
  EXPECT_EQ(first->name(), "zeros");
  ASSERT_EQ(second->opcode(), HloOpcode::kFusion);
  EXPECT_NE(second, first);
  EXPECT_NE(second->fused_computation(), first->fused_computation());
  // The forward loop's stacks go to the backward loop as they are: the
  // forward loop, their only other reader, has finished by then.
  const HloInstruction* backward_init = Find(*entry, "bw")->operand(0);
  EXPECT_EQ(backward_init->operand(2)->name(), "hs");
  EXPECT_EQ(backward_init->operand(3)->name(), "ts");
  // The accumulator is updated in place (the product is staged apart).
  EXPECT_EQ(CountCopies(*Computation(*module, "bbody")), 0) << PrintHloModule(*module);
  EXPECT_TRUE(ScheduleAndAssign(*module).ok());
}

TEST(CopyInsertionTest, OtherReadersOfTheInitRunBeforeTheLoop) {
  auto module = Parse(R"(HloModule m
body {
  s = (f32[8]) parameter(0)
  x = f32[8] get-tuple-element(s), index=0
  y = f32[8] tanh(x)
  ROOT next = (f32[8]) tuple(y)
}
cond {
  c = (f32[8]) parameter(0)
  ROOT f = pred[] constant(false)
}
ENTRY main {
  a = f32[8] parameter(0)
  n = f32[8] negate(a)
  init = (f32[8]) tuple(n)
  w = (f32[8]) while(init), condition=cond, body=body
  g = f32[8] get-tuple-element(w), index=0
  side = f32[8] sine(n)
  ROOT t = (f32[8], f32[8]) tuple(g, side)
})");
  CopyInsertion pass;
  EXPECT_TRUE(*RunPassKeepingResults(pass, *module));
  const HloComputation* entry = module->entry_computation();
  EXPECT_EQ(CountCopies(*entry), 0);
  // sine reads n: it must run before the loop overwrites n in place.
  const HloInstruction* side = Find(*entry, "side");
  ASSERT_EQ(side->control_successors().size(), 1u);
  EXPECT_EQ(side->control_successors()[0]->name(), "w");
  EXPECT_TRUE(ScheduleAndAssign(*module).ok());
}

TEST(CopyInsertionTest, SwappedStateIsCopiedTwice) {
  auto module = Parse(R"(HloModule m
body {
  s = (s32[], f32[8], f32[8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  inc = s32[] add(i, one)
  x = f32[8] get-tuple-element(s), index=1
  y = f32[8] get-tuple-element(s), index=2
  ROOT next = (s32[], f32[8], f32[8]) tuple(inc, y, x)
}
cond {
  c = (s32[], f32[8], f32[8]) parameter(0)
  ci = s32[] get-tuple-element(c), index=0
  lim = s32[] constant(3)
  ROOT lt = pred[] compare(ci, lim), direction=LT
}
ENTRY main {
  zero = s32[] constant(0)
  a = f32[8] parameter(0)
  b = f32[8] parameter(1)
  na = f32[8] negate(a)
  nb = f32[8] negate(b)
  init = (s32[], f32[8], f32[8]) tuple(zero, na, nb)
  w = (s32[], f32[8], f32[8]) while(init), condition=cond, body=body
  g1 = f32[8] get-tuple-element(w), index=1
  g2 = f32[8] get-tuple-element(w), index=2
  ROOT t = (f32[8], f32[8]) tuple(g1, g2)
})");
  CopyInsertion pass;
  EXPECT_TRUE(*RunPassKeepingResults(pass, *module));
  EXPECT_EQ(CountCopies(*Computation(*module, "body")), 4);
  EXPECT_TRUE(ScheduleAndAssign(*module).ok()) << PrintHloModule(*module);
}

TEST(CopyInsertionTest, BranchReturningItsOperandIsCopied) {
  auto module = Parse(R"(HloModule m
on_true {
  tp = f32[4] parameter(0)
  ROOT tr = f32[4] cosine(tp)
}
on_false {
  fp = f32[4] parameter(0)
  ROOT same = f32[4] copy(fp)
}
pass_through {
  pp = f32[4] parameter(0)
  ROOT pr = f32[4] sine(pp)
}
keep {
  kp = f32[4] parameter(0)
  ROOT kr = f32[4] negate(kp)
}
ENTRY main {
  pr0 = pred[] parameter(0)
  a = f32[4] parameter(1)
  k = f32[4] conditional(pr0, a, a), true_computation=on_true, false_computation=on_false
  id = s32[] parameter(2)
  j = f32[4] conditional(id, k, a), branch_computations={pass_through, keep}
  ROOT t = (f32[4], f32[4]) tuple(k, j)
})");
  // on_false already copies; a branch that returns its parameter is not
  // tested through the parser (it would be a copy anyway), so rewrite one.
  HloComputation* on_false = module->GetComputationWithName("on_false");
  HloInstruction* fp = on_false->parameter_instruction(0);
  HloInstruction* same = on_false->root_instruction();
  on_false->set_root_instruction(fp);
  ASSERT_TRUE(on_false->RemoveInstruction(same).ok());
  CopyInsertion pass;
  EXPECT_TRUE(*RunPassKeepingResults(pass, *module));
  EXPECT_EQ(CountCopies(*Computation(*module, "on_false")), 1);
  EXPECT_EQ(CountCopies(*Computation(*module, "on_true")), 0);
  EXPECT_EQ(CountCopies(*Computation(*module, "pass_through")), 0);
  EXPECT_TRUE(ScheduleAndAssign(*module).ok());
}

TEST(CopyInsertionTest, EntryOutputsThatAreParametersConstantsOrRepeatedAreCopied) {
  auto module = Parse(R"(HloModule m
ENTRY main {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  c = f32[4] constant({1, 2, 3, 4})
  n = f32[4] negate(b)
  ROOT t = (f32[4], f32[4], f32[4], f32[4]) tuple(a, c, n, n)
})");
  CopyInsertion pass;
  EXPECT_TRUE(*RunPassKeepingResults(pass, *module));
  EXPECT_EQ(CountCopies(*module->entry_computation()), 3);
  EXPECT_TRUE(ScheduleAndAssign(*module).ok());

  // A parameter donated to the output it is returned as needs no copy.
  auto donated = Parse(R"(HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }
ENTRY main {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  n = f32[4] negate(b)
  ROOT t = (f32[4], f32[4]) tuple(a, n)
})");
  EXPECT_FALSE(*RunPassKeepingResults(pass, *donated));
  EXPECT_TRUE(ScheduleAndAssign(*donated).ok());
}

constexpr absl::string_view kShared = R"(HloModule m
twice {
  t = f32[4] parameter(0)
  ROOT tt = f32[4] add(t, t)
}
ENTRY main {
  a = f32[4] parameter(0)
  c1 = f32[4] call(a), to_apply=twice
  c2 = f32[4] call(c1), to_apply=twice
  ROOT r = f32[4] negate(c2)
})";

TEST(CopyInsertionTest, SharedComputationsAreClonedPerCallSite) {
  auto module = Parse(kShared);
  {
    auto unflattened = Parse(kShared);
    absl::Status status = ScheduleAndAssign(*unflattened);
    EXPECT_FALSE(status.ok());
    EXPECT_TRUE(absl::StrContains(status.message(), "more than one place")) << status;
  }
  CopyInsertion pass;
  EXPECT_TRUE(*RunPassKeepingResults(pass, *module));
  EXPECT_EQ(pass.computations_cloned(), 1);
  const HloComputation* entry = module->entry_computation();
  EXPECT_NE(Find(*entry, "c1")->to_apply(), Find(*entry, "c2")->to_apply());
  EXPECT_TRUE(ScheduleAndAssign(*module).ok());
}

TEST(CopyInsertionTest, DropsAStaleSchedule) {
  auto module = Parse(kLoop);
  HloScheduler scheduler;
  ASSERT_TRUE(scheduler.Run(module.get()).ok());
  CopyInsertion pass;
  ASSERT_TRUE(*pass.Run(module.get()));
  EXPECT_FALSE(module->has_schedule());
}

}  // namespace
}  // namespace tessera
