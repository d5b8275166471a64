#include "hlo/analysis/hlo_dataflow_analysis.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "hlo/analysis/hlo_alias_analysis.h"
#include "hlo/parser/hlo_parser.h"

namespace tessera {
namespace {

std::unique_ptr<HloModule> Parse(absl::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? *std::move(module) : nullptr;
}

const HloInstruction* Find(const HloModule& module, absl::string_view name) {
  for (const HloComputation* computation : module.computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      if (instruction->name() == name) return instruction;
    }
  }
  ADD_FAILURE() << "no instruction " << name;
  return nullptr;
}

class DataflowTest : public ::testing::Test {
 protected:
  void Analyze(absl::string_view text) {
    module_ = Parse(text);
    ASSERT_NE(module_, nullptr);
    absl::StatusOr<std::unique_ptr<HloDataflowAnalysis>> dataflow =
        HloDataflowAnalysis::Run(*module_);
    ASSERT_TRUE(dataflow.ok()) << dataflow.status();
    dataflow_ = *std::move(dataflow);
    alias_ = std::make_unique<HloAliasAnalysis>(*dataflow_);
  }
  const HloInstruction* I(absl::string_view name) { return Find(*module_, name); }
  const HloValue* At(absl::string_view name, ShapeIndex index = {}) {
    return dataflow_->GetValueAt(I(name), index);
  }
  const HloValue* DefinedAt(absl::string_view name, ShapeIndex index = {}) {
    return dataflow_->GetValueDefinedAt(I(name), index);
  }
  bool SameBuffer(const HloValue* a, const HloValue* b) {
    return alias_->GetBufferContainingValue(*a).id() == alias_->GetBufferContainingValue(*b).id();
  }

  std::unique_ptr<HloModule> module_;
  std::unique_ptr<HloDataflowAnalysis> dataflow_;
  std::unique_ptr<HloAliasAnalysis> alias_;
};

TEST_F(DataflowTest, TuplesGetTupleElementAndBitcastForward) {
  Analyze(R"(HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  e = f32[4] exponential(p)
  t = (f32[4], f32[4]) tuple(p, e)
  g = f32[4] get-tuple-element(t), index=1
  b = f32[2,2] bitcast(g)
  n = f32[2,2] negate(b)
  ROOT r = (f32[2,2], (f32[4], f32[4])) tuple(n, t)
})");
  const HloValue* p = DefinedAt("p");
  const HloValue* e = DefinedAt("e");
  ASSERT_NE(p, nullptr);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(At("t", {0}), p);
  EXPECT_EQ(At("t", {1}), e);
  EXPECT_EQ(At("t", {}), nullptr);  // a tuple has no storage of its own
  EXPECT_EQ(At("g"), e);
  EXPECT_EQ(At("b"), e);
  EXPECT_EQ(DefinedAt("g"), nullptr);
  EXPECT_EQ(DefinedAt("b"), nullptr);
  EXPECT_EQ(At("r", {1, 1}), e);
  // Values: p, e, n.
  EXPECT_EQ(dataflow_->values().size(), 3u);
  // e is read by negate through the bitcast; forwarding ops do not read.
  ASSERT_EQ(e->uses().size(), 1u);
  EXPECT_EQ(e->uses()[0].instruction, I("n"));
  EXPECT_EQ(p->uses().size(), 1u);
  EXPECT_EQ(e->positions().size(), 5u);  // e, t{1}, g, b, r{1,1}
  EXPECT_EQ(e->positions()[0], (HloPosition{I("e"), {}}));
  EXPECT_TRUE(e->IsRootOf(module_->entry_computation()));
  EXPECT_TRUE(p->IsRootOf(module_->entry_computation()));
  EXPECT_EQ(e->ToShortString(), "%e");
}

TEST_F(DataflowTest, WhileLoopStateIsOnePhiSharedWithInitAndBodyRoot) {
  Analyze(R"(HloModule m
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
  lim = s32[] constant(3)
  ROOT lt = pred[] compare(ci, lim), direction=LT
}
ENTRY main {
  zero = s32[] constant(0)
  a = f32[8] parameter(0)
  init = (s32[], f32[8]) tuple(zero, a)
  w = (s32[], f32[8]) while(init), condition=cond, body=body
  ROOT out = f32[8] get-tuple-element(w), index=1
})");
  const HloValue* phi0 = DefinedAt("w", {0});
  const HloValue* phi1 = DefinedAt("w", {1});
  ASSERT_NE(phi1, nullptr);
  EXPECT_TRUE(phi1->is_phi());
  // The body's and condition's parameters hold the loop state.
  EXPECT_EQ(At("s", {1}), phi1);
  EXPECT_EQ(At("c", {0}), phi0);
  EXPECT_EQ(At("x"), phi1);
  EXPECT_EQ(At("out"), phi1);
  // Init and body root flow into the phi and share its buffer.
  ASSERT_EQ(phi1->phi_inputs().size(), 2u);
  EXPECT_EQ(phi1->phi_inputs()[0], DefinedAt("a"));
  EXPECT_EQ(phi1->phi_inputs()[1], DefinedAt("y"));
  EXPECT_TRUE(SameBuffer(phi1, DefinedAt("a")));
  EXPECT_TRUE(SameBuffer(phi1, DefinedAt("y")));
  EXPECT_TRUE(SameBuffer(phi0, DefinedAt("inc")));
  EXPECT_TRUE(SameBuffer(phi0, DefinedAt("zero")));
  EXPECT_FALSE(SameBuffer(phi0, phi1));
  // The phi is read by tanh in the body and by the compare in the condition.
  std::vector<std::string> readers;
  for (const HloUse& use : phi1->uses()) readers.push_back(use.instruction->name());
  EXPECT_EQ(readers, std::vector<std::string>{"y"});
  EXPECT_EQ(phi0->uses().size(), 2u);  // inc, lt
  // The while reads its init.
  EXPECT_EQ(DefinedAt("a")->uses()[0].instruction, I("w"));
  EXPECT_EQ(dataflow_->context(module_->GetComputationWithName("body")), HloDataflowAnalysis::Context::kFlat);
  EXPECT_EQ(dataflow_->caller(I("s")->parent()), I("w"));
  EXPECT_EQ(dataflow_->LiftToComputation(I("y"), module_->entry_computation()), I("w"));
  EXPECT_EQ(dataflow_->sequential_computations().size(), 3u);
  const HloBuffer& buffer = alias_->GetBufferContainingValue(*phi1);
  EXPECT_EQ(buffer.values().size(), 3u);
  EXPECT_EQ(buffer.ByteSize(), 32);
}

TEST_F(DataflowTest, ConditionalBranchesForwardOperandsAndMergeRoots) {
  Analyze(R"(HloModule m
on_true {
  tp = f32[4] parameter(0)
  ROOT tr = f32[4] cosine(tp)
}
on_false {
  fp = (f32[4], f32[4]) parameter(0)
  f0 = f32[4] get-tuple-element(fp), index=0
  f1 = f32[4] get-tuple-element(fp), index=1
  ROOT fr = f32[4] add(f0, f1)
}
ENTRY main {
  pr = pred[] parameter(0)
  a = f32[4] parameter(1)
  b = f32[4] parameter(2)
  pair = (f32[4], f32[4]) tuple(a, b)
  ROOT k = f32[4] conditional(pr, a, pair), true_computation=on_true, false_computation=on_false
})");
  const HloValue* merged = DefinedAt("k");
  ASSERT_NE(merged, nullptr);
  EXPECT_TRUE(merged->is_phi());
  EXPECT_EQ(At("tp"), DefinedAt("a"));
  EXPECT_EQ(At("f1"), DefinedAt("b"));
  ASSERT_EQ(merged->phi_inputs().size(), 2u);
  EXPECT_TRUE(SameBuffer(merged, DefinedAt("tr")));
  EXPECT_TRUE(SameBuffer(merged, DefinedAt("fr")));
  EXPECT_FALSE(SameBuffer(merged, DefinedAt("a")));
  // a is read by cosine in one branch and by add in the other, and by the
  // conditional itself as operands 1 and 2 (which it passes on).
  EXPECT_EQ(DefinedAt("a")->uses().size(), 4u);
}

TEST_F(DataflowTest, CallForwardsParametersAndRoot) {
  Analyze(R"(HloModule m
callee {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  s = f32[4] subtract(x, y)
  ROOT pair = (f32[4], f32[4]) tuple(s, x)
}
ENTRY main {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  c = (f32[4], f32[4]) call(a, b), to_apply=callee
  ROOT g = f32[4] get-tuple-element(c), index=1
})");
  EXPECT_EQ(At("x"), DefinedAt("a"));
  EXPECT_EQ(At("c", {0}), DefinedAt("s"));
  EXPECT_EQ(At("c", {1}), DefinedAt("a"));
  EXPECT_EQ(At("g"), DefinedAt("a"));
  EXPECT_EQ(dataflow_->GetValuesDefinedBy(I("c")).size(), 0u);
  // Values: a, b, s.
  EXPECT_EQ(dataflow_->values().size(), 3u);
}

TEST_F(DataflowTest, MultiOutputFusionDefinesEachLeaf) {
  Analyze(R"(HloModule m
fused {
  fa = f32[4] parameter(0)
  fe = f32[4] exponential(fa)
  fn = f32[4] negate(fa)
  ROOT ft = (f32[4], f32[4]) tuple(fe, fn)
}
ENTRY main {
  a = f32[4] parameter(0)
  f = (f32[4], f32[4]) fusion(a), kind=kLoop, calls=fused
  g0 = f32[4] get-tuple-element(f), index=0
  g1 = f32[4] get-tuple-element(f), index=1
  ROOT s = f32[4] add(g0, g1)
})");
  ASSERT_NE(DefinedAt("f", {0}), nullptr);
  ASSERT_NE(DefinedAt("f", {1}), nullptr);
  EXPECT_EQ(At("g1"), DefinedAt("f", {1}));
  EXPECT_EQ(dataflow_->GetLeafValues(I("fe")).size(), 0u);  // fused bodies are not analysed
  EXPECT_EQ(dataflow_->context(I("fe")->parent()), HloDataflowAnalysis::Context::kFusion);
  // Each fusion output may reuse the operand: the fused parameter is only
  // read elementwise.
  EXPECT_TRUE(CanShareOperandBufferWithUser(*I("f"), 0, {}, {0}));
  EXPECT_TRUE(CanShareOperandBufferWithUser(*I("f"), 0, {}, {1}));
}

TEST_F(DataflowTest, MultiOutputFusionSharesNoOperandInACycle) {
  // Threefry's loop state: each output would overwrite an operand the other
  // reads, and outputs run one after another, so neither may.  The
  // optimizer-like fusion's in-place updates form no cycle: all may.
  Analyze(R"(HloModule m
rotate {
  x0 = u32[8] parameter(0)
  x1 = u32[8] parameter(1)
  y0 = u32[8] add(x0, x1)
  y1 = u32[8] xor(x1, y0)
  ROOT t = (u32[8], u32[8]) tuple(y0, y1)
}
update {
  p = f32[8] parameter(0)
  m = f32[8] parameter(1)
  v = f32[8] parameter(2)
  m2 = f32[8] add(m, m)
  v2 = f32[8] multiply(v, v)
  mv = f32[8] multiply(m2, v2)
  p2 = f32[8] subtract(p, mv)
  ROOT t = (f32[8], f32[8], f32[8]) tuple(p2, m2, v2)
}
ENTRY main {
  a = u32[8] parameter(0)
  b = u32[8] parameter(1)
  r = (u32[8], u32[8]) fusion(a, b), kind=kLoop, calls=rotate
  p = f32[8] parameter(2)
  m = f32[8] parameter(3)
  v = f32[8] parameter(4)
  u = (f32[8], f32[8], f32[8]) fusion(p, m, v), kind=kLoop, calls=update
  ROOT t = ((u32[8], u32[8]), (f32[8], f32[8], f32[8])) tuple(r, u)
})");
  EXPECT_FALSE(CanShareOperandBufferWithUser(*I("r"), 0, {}, {0}));
  EXPECT_FALSE(CanShareOperandBufferWithUser(*I("r"), 1, {}, {1}));
  EXPECT_TRUE(CanShareOperandBufferWithUser(*I("u"), 0, {}, {0}));
  EXPECT_TRUE(CanShareOperandBufferWithUser(*I("u"), 1, {}, {1}));
  EXPECT_TRUE(CanShareOperandBufferWithUser(*I("u"), 2, {}, {2}));
  // The analysis's answers (one sharing graph per fusion, kept across
  // queries) are the same for every operand and output, asked twice.
  for (int pass = 0; pass < 2; ++pass) {
    for (const char* name : {"r", "u"}) {
      const HloInstruction& fusion = *I(name);
      for (int64_t k = 0; k < fusion.operand_count(); ++k) {
        for (int64_t out = 0; out < fusion.shape().tuple_size(); ++out) {
          EXPECT_EQ(dataflow_->CanShareOperandBuffer(fusion, k, {}, {out}),
                    CanShareOperandBufferWithUser(fusion, k, {}, {out}))
              << name << " operand " << k << " output " << out;
        }
      }
    }
  }
}

TEST_F(DataflowTest, SharedAndReducerComputationsAreIsolated) {
  Analyze(R"(HloModule m
sum {
  l = f32[] parameter(0)
  r = f32[] parameter(1)
  ROOT lr = f32[] add(l, r)
}
twice {
  t = f32[4] parameter(0)
  ROOT tt = f32[4] add(t, t)
}
ENTRY main {
  a = f32[4] parameter(0)
  c1 = f32[4] call(a), to_apply=twice
  c2 = f32[4] call(c1), to_apply=twice
  zero = f32[] constant(0)
  ROOT red = f32[] reduce(c2, zero), dimensions={0}, to_apply=sum
})");
  EXPECT_EQ(dataflow_->context(I("t")->parent()), HloDataflowAnalysis::Context::kIsolated);
  EXPECT_EQ(dataflow_->context(I("l")->parent()), HloDataflowAnalysis::Context::kIsolated);
  ASSERT_EQ(dataflow_->unflattened_callees().size(), 1u);
  EXPECT_EQ(dataflow_->unflattened_callees()[0], I("t")->parent());
  // Calls of a shared computation define their outputs; its parameters
  // define values.
  EXPECT_NE(DefinedAt("c1"), nullptr);
  EXPECT_NE(DefinedAt("t"), nullptr);
  EXPECT_NE(DefinedAt("l"), nullptr);
  EXPECT_EQ(dataflow_->sequential_computations().size(), 1u);
}

TEST_F(DataflowTest, InPlaceRules) {
  Analyze(R"(HloModule m
sum {
  l = f32[] parameter(0)
  r = f32[] parameter(1)
  ROOT lr = f32[] add(l, r)
}
fused_reduce {
  q = f32[4] parameter(0)
  qz = f32[] constant(0)
  qr = f32[] reduce(q, qz), dimensions={0}, to_apply=sum
  qb = f32[4] broadcast(qr), dimensions={}
  ROOT qa = f32[4] add(q, qb)
}
fused_dus {
  d0 = f32[8] parameter(0)
  d1 = f32[2] parameter(1)
  d2 = s32[] parameter(2)
  ROOT du = f32[8] dynamic-update-slice(d0, d1, d2)
}
ENTRY main {
  a = f32[4] parameter(0)
  m = f32[2,2]{0,1} parameter(1)
  big = f32[8] parameter(2)
  upd = f32[2] parameter(3)
  i = s32[] parameter(4)
  n = f32[4] negate(a)
  cv = s32[4] convert(a)
  cmp = pred[4] compare(a, n), direction=LT
  tr = f32[2,2]{1,0} transpose(m), dimensions={1,0}
  cp = f32[2,2]{1,0} copy(m)
  dus = f32[8] dynamic-update-slice(big, upd, i)
  fr = f32[4] fusion(a), kind=kLoop, calls=fused_reduce
  fd = f32[8] fusion(big, upd, i), kind=kLoop, calls=fused_dus
  ROOT t = (f32[4], s32[4], pred[4], f32[2,2]{1,0}, f32[2,2]{1,0}, f32[8], f32[4], f32[8]) tuple(n, cv, cmp, tr, cp, dus, fr, fd)
})");
  EXPECT_TRUE(CanShareOperandBufferWithUser(*I("n"), 0, {}, {}));
  EXPECT_TRUE(CanShareOperandBufferWithUser(*I("cv"), 0, {}, {}));   // same width
  EXPECT_FALSE(CanShareOperandBufferWithUser(*I("cmp"), 0, {}, {}));  // pred is narrower
  EXPECT_FALSE(CanShareOperandBufferWithUser(*I("tr"), 0, {}, {}));
  EXPECT_FALSE(CanShareOperandBufferWithUser(*I("cp"), 0, {}, {}));
  EXPECT_TRUE(CanShareOperandBufferWithUser(*I("dus"), 0, {}, {}));
  EXPECT_FALSE(CanShareOperandBufferWithUser(*I("dus"), 1, {}, {}));
  EXPECT_FALSE(CanShareOperandBufferWithUser(*I("fr"), 0, {}, {}));  // reduce reads all of q
  EXPECT_TRUE(CanShareOperandBufferWithUser(*I("fd"), 0, {}, {}));
  EXPECT_FALSE(CanShareOperandBufferWithUser(*I("fd"), 1, {}, {}));
}

TEST_F(DataflowTest, OutputFusionSharesOnlyAStagedAccumulator) {
  // The GEMM writes all of the result before the epilogue reads the other
  // operands.  Backends stage the product apart for one rank-2 row-major
  // f32/f64/s32 dot (StagesItsProduct), where an operand the epilogue reads
  // elementwise (an accumulator) may then be the result; nowhere else.
  Analyze(R"(HloModule m
fused_dot {
  x = f32[4,3] parameter(0)
  w = f32[3,4] parameter(1)
  acc = f32[4,4] parameter(2)
  d = f32[4,4] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT s = f32[4,4] add(d, acc)
}
fused_transposed_read {
  x = f32[4,3] parameter(0)
  w = f32[3,4] parameter(1)
  acc = f32[4,4] parameter(2)
  d = f32[4,4] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[4,4] transpose(acc), dimensions={1,0}
  ROOT s = f32[4,4] add(d, t)
}
fused_dot_transposed {
  x = f32[4,3] parameter(0)
  w = f32[3,4] parameter(1)
  acc = f32[4,4] parameter(2)
  d = f32[4,4] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[4,4] transpose(d), dimensions={1,0}
  ROOT s = f32[4,4] add(acc, t)
}
fused_half {
  x = f16[4,3] parameter(0)
  w = f16[3,4] parameter(1)
  acc = f16[4,4] parameter(2)
  d = f16[4,4] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT s = f16[4,4] add(d, acc)
}
fused_widening {
  x = s8[4,3] parameter(0)
  w = s8[3,4] parameter(1)
  acc = s32[4,4] parameter(2)
  d = s32[4,4] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT s = s32[4,4] add(d, acc)
}
fused_batched {
  x = f32[2,4,3] parameter(0)
  w = f32[2,3,4] parameter(1)
  acc = f32[2,4,4] parameter(2)
  d = f32[2,4,4] dot(x, w), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  ROOT s = f32[2,4,4] add(d, acc)
}
fused_column_major {
  x = f32[4,3] parameter(0)
  w = f32[3,4] parameter(1)
  acc = f32[4,4]{0,1} parameter(2)
  d = f32[4,4]{0,1} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT s = f32[4,4]{0,1} add(d, acc)
}
fused_conv {
  x = f32[1,4,4,1] parameter(0)
  k = f32[1,1,1,1] parameter(1)
  acc = f32[1,4,4,1] parameter(2)
  c = f32[1,4,4,1] convolution(x, k), window={size=1x1}, dim_labels=b01f_01io->b01f
  ROOT s = f32[1,4,4,1] add(c, acc)
}
ENTRY main {
  a = f32[4,3] parameter(0)
  b = f32[3,4] parameter(1)
  c = f32[4,4] parameter(2)
  f = f32[4,4] fusion(a, b, c), kind=kOutput, calls=fused_dot
  ft = f32[4,4] fusion(a, b, c), kind=kOutput, calls=fused_transposed_read
  fd = f32[4,4] fusion(a, b, c), kind=kOutput, calls=fused_dot_transposed
  ha = f16[4,3] parameter(3)
  hb = f16[3,4] parameter(4)
  hc = f16[4,4] parameter(5)
  fh = f16[4,4] fusion(ha, hb, hc), kind=kOutput, calls=fused_half
  ia8 = s8[4,3] parameter(12)
  ib8 = s8[3,4] parameter(13)
  ic = s32[4,4] parameter(14)
  fw = s32[4,4] fusion(ia8, ib8, ic), kind=kOutput, calls=fused_widening
  ba = f32[2,4,3] parameter(6)
  bb = f32[2,3,4] parameter(7)
  bc = f32[2,4,4] parameter(8)
  fb = f32[2,4,4] fusion(ba, bb, bc), kind=kOutput, calls=fused_batched
  cc = f32[4,4]{0,1} parameter(9)
  fc = f32[4,4]{0,1} fusion(a, b, cc), kind=kOutput, calls=fused_column_major
  ia = f32[1,4,4,1] parameter(10)
  ik = f32[1,1,1,1] parameter(11)
  fv = f32[1,4,4,1] fusion(ia, ik, ia), kind=kOutput, calls=fused_conv
  ROOT t = (f32[4,4], f32[4,4], f16[4,4], f32[2,4,4], f32[4,4]{0,1}, f32[1,4,4,1], s32[4,4], f32[4,4]) tuple(f, ft, fh, fb, fc, fv, fw, fd)
})");
  EXPECT_TRUE(CanShareOperandBufferWithUser(*I("f"), 2, {}, {}));
  EXPECT_FALSE(CanShareOperandBufferWithUser(*I("f"), 0, {}, {}));   // the dot's operand
  EXPECT_FALSE(CanShareOperandBufferWithUser(*I("ft"), 2, {}, {}));  // read transposed
  EXPECT_FALSE(CanShareOperandBufferWithUser(*I("fd"), 2, {}, {}));  // the dot read transposed
  EXPECT_FALSE(CanShareOperandBufferWithUser(*I("fh"), 2, {}, {}));  // f16: not staged
  EXPECT_FALSE(CanShareOperandBufferWithUser(*I("fw"), 2, {}, {}));  // s8 x s8 -> s32
  EXPECT_FALSE(CanShareOperandBufferWithUser(*I("fb"), 2, {}, {}));  // batched
  EXPECT_FALSE(CanShareOperandBufferWithUser(*I("fc"), 2, {}, {}));  // column-major
  EXPECT_FALSE(CanShareOperandBufferWithUser(*I("fv"), 2, {}, {}));  // a convolution
}

}  // namespace
}  // namespace tessera
