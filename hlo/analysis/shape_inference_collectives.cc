// Shape inference for collectives and other communicating or side-effecting
// ops: all-reduce, all-gather, reduce-scatter, all-to-all, collective
// permute/broadcast and their start/done halves, send/recv, infeed/outfeed,
// tokens, copy-start/done, replica/partition ids and the RNG ops.
#include <algorithm>
#include <set>

#include "hlo/analysis/shape_inference.h"
#include "hlo/analysis/shape_inference_internal.h"
#include "hlo/ir/hlo_module.h"
#include "hlo/ir/status_macros.h"

namespace tessera {

using namespace shape_inference_internal;  // NOLINT: shared helpers

absl::StatusOr<Shape> InferAllReduceShape(absl::Span<const Shape* const> operands) {
  for (const Shape* shape : operands) {
    TS_RETURN_IF_ERROR(ExpectArray(*shape, "an operand of a cross-replica reduction"));
  }
  if (operands.size() == 1) return *operands[0];
  return InferTupleShape(operands);
}

absl::StatusOr<Shape> InferAllGatherShape(absl::Span<const Shape* const> operands,
                                          int64_t all_gather_dimension, int64_t shard_count) {
  if (shard_count <= 0) return Invalid("all-gather shard count must be positive");
  std::vector<Shape> results;
  for (const Shape* shape : operands) {
    TS_RETURN_IF_ERROR(ExpectArray(*shape, "an operand of all-gather"));
    if (all_gather_dimension < 0 || all_gather_dimension >= shape->rank()) {
      return Invalid("all-gather dimension ", all_gather_dimension, " is out of range for ",
                     Str(*shape));
    }
    Shape result = WithElementType(*shape, shape->element_type());
    result.set_dimensions(all_gather_dimension,
                          shape->dimensions(all_gather_dimension) * shard_count);
    results.push_back(std::move(result));
  }
  if (results.size() == 1) return results[0];
  return Shape::MakeTuple(std::move(results));
}

absl::StatusOr<Shape> InferReduceScatterShape(absl::Span<const Shape* const> operands,
                                              int64_t scatter_dimension, int64_t shard_count) {
  if (shard_count <= 0) return Invalid("reduce-scatter shard count must be positive");
  std::vector<Shape> results;
  for (const Shape* shape : operands) {
    TS_RETURN_IF_ERROR(ExpectArray(*shape, "an operand of reduce-scatter"));
    if (scatter_dimension < 0 || scatter_dimension >= shape->rank()) {
      return Invalid("reduce-scatter dimension ", scatter_dimension, " is out of range for ",
                     Str(*shape));
    }
    const int64_t size = shape->dimensions(scatter_dimension);
    if (size % shard_count != 0) {
      return Invalid("reduce-scatter dimension size ", size, " of ", Str(*shape),
                     " is not divisible by the shard count ", shard_count);
    }
    Shape result = WithElementType(*shape, shape->element_type());
    result.set_dimensions(scatter_dimension, size / shard_count);
    results.push_back(std::move(result));
  }
  if (results.size() == 1) return results[0];
  return Shape::MakeTuple(std::move(results));
}

absl::StatusOr<Shape> InferAllToAllShape(const Shape& operand, int64_t split_dimension,
                                         int64_t concat_dimension, int64_t split_count) {
  TS_RETURN_IF_ERROR(ExpectArray(operand, "the operand of all-to-all"));
  if (split_count <= 0) return Invalid("all-to-all split count must be positive");
  if (split_dimension < 0 || split_dimension >= operand.rank() || concat_dimension < 0 ||
      concat_dimension >= operand.rank()) {
    return Invalid("all-to-all dimensions are out of range for ", Str(operand));
  }
  if (operand.dimensions(split_dimension) % split_count != 0) {
    return Invalid("all-to-all split dimension of ", Str(operand),
                   " is not divisible by the split count ", split_count);
  }
  Shape result = WithElementType(operand, operand.element_type());
  result.set_dimensions(split_dimension, operand.dimensions(split_dimension) / split_count);
  result.set_dimensions(concat_dimension, result.dimensions(concat_dimension) * split_count);
  return result;
}

absl::StatusOr<Shape> InferAllToAllTupleShape(absl::Span<const Shape* const> operands) {
  for (const Shape* shape : operands) {
    TS_RETURN_IF_ERROR(ExpectArray(*shape, "an operand of all-to-all"));
    if (!ShapesCompatible(*shape, *operands[0])) {
      return Invalid("all-to-all operands ", Str(*operands[0]), " and ", Str(*shape),
                     " have different shapes");
    }
  }
  return InferTupleShape(operands);
}

namespace {

enum class GroupMode { kCrossReplica, kCrossPartition, kCrossReplicaAndPartition, kFlattenedId };

const HloModuleConfig* ModuleConfig(const HloInstruction& hlo) {
  if (hlo.parent() == nullptr || hlo.parent()->parent() == nullptr) return nullptr;
  return &hlo.parent()->parent()->config();
}

// XLA's CollectiveOpGroupMode from the channel id and use_global_device_ids;
// ops without that attribute (all-to-all, collective-permute) pass false
// for `has_global_attr`.
GroupMode GetGroupMode(const HloInstruction& hlo, bool has_global_attr) {
  const bool channel = hlo.attrs().channel_id > 0;
  if (!channel) return GroupMode::kCrossReplica;
  if (!has_global_attr) return GroupMode::kCrossPartition;
  return hlo.attrs().use_global_device_ids ? GroupMode::kFlattenedId
                                           : GroupMode::kCrossReplicaAndPartition;
}

// The replica groups, expanding the compact iota form.
absl::StatusOr<std::vector<std::vector<int64_t>>> ReplicaGroups(const HloInstruction& hlo) {
  std::vector<std::vector<int64_t>> groups;
  for (const ReplicaGroup& g : hlo.attrs().replica_groups) groups.push_back(g.replica_ids);
  if (!groups.empty() || !hlo.attrs().iota_replica_groups.has_value()) return groups;
  const IotaReplicaGroupList& iota = *hlo.attrs().iota_replica_groups;
  std::vector<int64_t> dims = iota.iota_reshape_dims;
  if (dims.empty()) dims = {iota.num_replica_groups * iota.num_devices_per_group};
  std::vector<int64_t> perm = iota.iota_transpose_perm;
  if (perm.empty()) {
    for (size_t i = 0; i < dims.size(); ++i) perm.push_back(static_cast<int64_t>(i));
  }
  int64_t total = 1;
  for (int64_t d : dims) {
    if (d <= 0 || total > (int64_t{1} << 24) / d) {
      return Invalid("iota replica group dimensions ", Dims(dims), " are invalid");
    }
    total *= d;
  }
  if (!IsPermutation(perm, static_cast<int64_t>(dims.size())) || iota.num_replica_groups <= 0 ||
      iota.num_devices_per_group <= 0 ||
      total != iota.num_replica_groups * iota.num_devices_per_group) {
    return Invalid("iota replica groups [", iota.num_replica_groups, ",",
                   iota.num_devices_per_group, "]<=", Dims(dims), " T", Dims(perm),
                   " are inconsistent");
  }
  // Device at position p of the transposed array: walk p's transposed index
  // back to the row-major position in the original array.
  std::vector<int64_t> strides = RowMajorStrides(dims);
  std::vector<int64_t> tdims;
  for (int64_t p : perm) tdims.push_back(dims[p]);
  std::vector<int64_t> devices(total);
  for (int64_t linear = 0; linear < total; ++linear) {
    int64_t rest = linear, device = 0;
    for (int64_t k = static_cast<int64_t>(tdims.size()) - 1; k >= 0; --k) {
      device += (rest % tdims[k]) * strides[perm[k]];
      rest /= tdims[k];
    }
    devices[linear] = device;
  }
  for (int64_t g = 0; g < iota.num_replica_groups; ++g) {
    groups.emplace_back(devices.begin() + g * iota.num_devices_per_group,
                        devices.begin() + (g + 1) * iota.num_devices_per_group);
  }
  return groups;
}

// XLA's CheckReplicaGroups: each participant once, numbered 0..n-1, n
// matching the module's replica/partition counts; uniform group sizes
// unless `uniform` is false (all-reduce).  Returns the subgroup size.
absl::StatusOr<int64_t> CheckReplicaGroups(const HloInstruction& hlo, GroupMode mode,
                                           bool uniform = true) {
  TS_ASSIGN_OR_RETURN(auto groups, ReplicaGroups(hlo));
  const HloModuleConfig* config = ModuleConfig(hlo);
  const int64_t replicas = config ? config->replica_count : 1;
  const int64_t partitions = config ? config->num_partitions : 1;
  if (groups.empty()) {
    if (mode == GroupMode::kFlattenedId) {
      return Invalid("replica groups are required with use_global_device_ids");
    }
    switch (mode) {
      case GroupMode::kCrossPartition:
        return partitions;
      case GroupMode::kCrossReplicaAndPartition:
        return replicas * partitions;
      default:
        return replicas;
    }
  }
  std::set<int64_t> seen;
  for (const auto& g : groups) {
    if (g.empty()) return Invalid("replica groups must not contain an empty group");
    for (int64_t id : g) {
      if (!seen.insert(id).second) return Invalid("replica ", id, " appears in two groups");
    }
    if (uniform && g.size() != groups[0].size()) {
      return Invalid("replica groups must all have the same size");
    }
  }
  const int64_t n = static_cast<int64_t>(seen.size());
  if (*seen.begin() != 0 || *seen.rbegin() != n - 1) {
    return Invalid("replica groups must name participants 0..", n - 1, " exactly once");
  }
  int64_t expected = replicas;
  if (mode == GroupMode::kCrossPartition) expected = partitions;
  if (mode == GroupMode::kFlattenedId) expected = replicas * partitions;
  if (expected != 1 && n != expected) {
    return Invalid("replica groups name ", n, " participants, expected ", expected);
  }
  int64_t size = static_cast<int64_t>(groups[0].size());
  if (mode == GroupMode::kCrossReplicaAndPartition) size *= partitions;
  return size;
}

// Checks the reduction computation of an all-reduce-like op: a binary
// function of scalars of each operand's element type.
absl::Status CheckCollectiveReducer(const HloInstruction& hlo) {
  TS_ASSIGN_OR_RETURN(ProgramShape reducer, CalledSignature(hlo, 0));
  for (int64_t i = 0; i < hlo.operand_count(); ++i) {
    const Shape& operand = hlo.operand(i)->shape();
    const Shape element = ScalarShape(operand.element_type());
    const Shape* init = &element;
    TS_RETURN_IF_ERROR(
        VerifyReducerShape(reducer, absl::MakeSpan(&init, 1), {operand.element_type()}, 1));
  }
  return absl::OkStatus();
}

// The shard count of all-gather / reduce-scatter: the ratio of the large to
// the small size of the gathered dimension of operand 0, as XLA derives it.
int64_t ShardCount(const Shape& small, const Shape& large, int64_t dimension) {
  if (dimension < 0 || dimension >= small.rank() || dimension >= large.rank() ||
      small.dimensions(dimension) <= 0) {
    return 1;
  }
  const int64_t a = large.dimensions(dimension), b = small.dimensions(dimension);
  return std::max<int64_t>(1, (a + b - 1) / b);
}

// Operand 0's part of a (possibly tuple-shaped) collective result.
const Shape& FirstResult(const Shape& result, int64_t operands) {
  if (operands > 1 && result.IsTuple() && result.tuple_size() > 0) return result.tuple_shapes(0);
  return result;
}

absl::Status ExpectToken(const HloInstruction& hlo, int64_t operand) {
  if (!hlo.operand(operand)->shape().IsToken()) {
    return Invalid(OpName(hlo.opcode()), " operand ", operand, " must be a token, got ",
                   Str(hlo.operand(operand)->shape()));
  }
  return absl::OkStatus();
}

absl::Status CheckSourceTargetPairs(const HloInstruction& hlo, GroupMode mode) {
  const HloModuleConfig* config = ModuleConfig(hlo);
  const int64_t limit = !config                            ? 1
                        : mode == GroupMode::kCrossReplica ? config->replica_count
                                                           : config->num_partitions;
  std::set<int64_t> sources, targets;
  for (const auto& [source, target] : hlo.attrs().source_target_pairs) {
    for (int64_t id : {source, target}) {
      if (id < 0 || (limit > 1 && id >= limit)) {
        return Invalid("source-target pair {", source, ",", target, "} is out of range");
      }
    }
    if (!sources.insert(source).second) {
      return Invalid("source ", source, " appears more than once in source_target_pairs");
    }
    if (!targets.insert(target).second) {
      return Invalid("target ", target, " appears more than once in source_target_pairs");
    }
  }
  return absl::OkStatus();
}

// collective-permute's data: operand 0 (or the tuple of all operands), and
// for the in-place form (input, output, input offsets, output offsets) the
// output buffer.
std::pair<Shape, Shape> PermuteInputOutput(const HloInstruction& hlo) {
  if (hlo.operand_count() == 4 && hlo.operand(2)->shape().IsTuple()) {
    return {hlo.operand(0)->shape(), hlo.operand(1)->shape()};
  }
  Shape data =
      hlo.operand_count() == 1 ? hlo.operand(0)->shape() : *InferTupleShape(OperandShapes(hlo));
  return {data, data};
}

absl::StatusOr<Shape> InferRng(const HloInstruction& hlo) {
  const Shape& a = hlo.operand(0)->shape();
  const Shape& b = hlo.operand(1)->shape();
  if (!a.IsScalar() || !b.IsScalar()) {
    return Invalid("rng parameters must be scalars, got ", Str(a), " and ", Str(b));
  }
  if (a.element_type() != b.element_type()) {
    return Invalid("rng parameters ", Str(a), " and ", Str(b), " have different types");
  }
  const PrimitiveType t = a.element_type();
  switch (hlo.attrs().distribution) {
    case RandomDistribution::kUniform:
      if (!IsFloatingPointType(t) && !IsIntegralType(t) && t != PRED) {
        return Invalid("rng uniform needs floating-point, integral or pred parameters, got ",
                       Str(a));
      }
      break;
    case RandomDistribution::kNormal:
      if (!IsFloatingPointType(t)) {
        return Invalid("rng normal needs floating-point parameters, got ", Str(a));
      }
      break;
    default:
      return Invalid("rng has an invalid distribution ",
                     static_cast<int>(hlo.attrs().distribution));
  }
  TS_RETURN_IF_ERROR(ExpectArray(hlo.shape(), "the result of rng"));
  return Shape(t, hlo.shape().dimensions());
}

absl::StatusOr<Shape> InferRngBitGenerator(const HloInstruction& hlo) {
  const Shape& state = hlo.operand(0)->shape();
  TS_RETURN_IF_ERROR(ExpectArray(state, "the state of rng-bit-generator"));
  const int32_t algorithm = static_cast<int32_t>(hlo.attrs().rng_algorithm);
  if (algorithm < 0 || algorithm > 2) {
    return Invalid("rng-bit-generator has an invalid algorithm ", algorithm);
  }
  const Shape& shape = hlo.shape();
  if (!shape.IsTuple()) return shape;
  if (shape.tuple_size() != 2) {
    return Invalid("rng-bit-generator must return (state, bits), got ", Str(shape));
  }
  if (!ShapesCompatible(shape.tuple_shapes(0), state)) {
    return Invalid("rng-bit-generator returns state ", Str(shape.tuple_shapes(0)), " but takes ",
                   Str(state));
  }
  TS_RETURN_IF_ERROR(ExpectArray(shape.tuple_shapes(1), "the bits of rng-bit-generator"));
  return shape;
}

}  // namespace

namespace shape_inference_internal {

absl::StatusOr<Shape> InferCollectiveInstruction(const HloInstruction& hlo) {
  const HloAttributes& attrs = hlo.attrs();
  auto operand = [&](int64_t i) -> const Shape& { return hlo.operand(i)->shape(); };
  const Shape u32 = ScalarShape(U32);
  switch (hlo.opcode()) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart: {
      TS_RETURN_IF_ERROR(
          CheckReplicaGroups(hlo, GetGroupMode(hlo, true), /*uniform=*/false).status());
      TS_RETURN_IF_ERROR(CheckCollectiveReducer(hlo));
      return InferAllReduceShape(OperandShapes(hlo));
    }
    case HloOpcode::kCollectiveBroadcast:
      TS_RETURN_IF_ERROR(CheckReplicaGroups(hlo, GetGroupMode(hlo, false)).status());
      return InferAllReduceShape(OperandShapes(hlo));
    case HloOpcode::kCollectiveReduce:
      return InferAllReduceShape(OperandShapes(hlo));
    case HloOpcode::kAllReduceDone:
      return operand(0);
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart: {
      TS_ASSIGN_OR_RETURN(int64_t dimension, SingleDimension(hlo, "all-gather dimension"));
      TS_ASSIGN_OR_RETURN(int64_t group_size, CheckReplicaGroups(hlo, GetGroupMode(hlo, true)));
      const Shape* declared = &hlo.shape();
      if (hlo.opcode() == HloOpcode::kAllGatherStart) {
        if (!declared->IsTuple() || declared->tuple_size() != 2) {
          return Invalid("all-gather-start must return (input, output), got ", Str(*declared));
        }
        declared = &declared->tuple_shapes(1);
      }
      const int64_t shards =
          ShardCount(operand(0), FirstResult(*declared, hlo.operand_count()), dimension);
      if (group_size != 1 && shards != group_size) {
        return Invalid("all-gather gathers ", shards, " shards but its groups have ", group_size,
                       " participants");
      }
      TS_ASSIGN_OR_RETURN(Shape gathered,
                          InferAllGatherShape(OperandShapes(hlo), dimension, shards));
      if (hlo.opcode() == HloOpcode::kAllGather) return gathered;
      TS_ASSIGN_OR_RETURN(Shape input, InferAllReduceShape(OperandShapes(hlo)));
      return Shape::MakeTuple({input, gathered});
    }
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kCollectivePermuteDone:
      if (!operand(0).IsTuple() || operand(0).tuple_size() < 2) {
        return Invalid(OpName(hlo.opcode()), " operand must be a start tuple, got ",
                       Str(operand(0)));
      }
      return operand(0).tuple_shapes(1);
    case HloOpcode::kReduceScatter: {
      TS_ASSIGN_OR_RETURN(int64_t dimension, SingleDimension(hlo, "reduce-scatter dimension"));
      TS_ASSIGN_OR_RETURN(int64_t group_size, CheckReplicaGroups(hlo, GetGroupMode(hlo, true)));
      TS_RETURN_IF_ERROR(CheckCollectiveReducer(hlo));
      const int64_t shards =
          ShardCount(FirstResult(hlo.shape(), hlo.operand_count()), operand(0), dimension);
      if (group_size != 1 && shards != group_size) {
        return Invalid("reduce-scatter scatters ", shards, " shards but its groups have ",
                       group_size, " participants");
      }
      return InferReduceScatterShape(OperandShapes(hlo), dimension, shards);
    }
    case HloOpcode::kAllToAll: {
      TS_ASSIGN_OR_RETURN(int64_t group_size, CheckReplicaGroups(hlo, GetGroupMode(hlo, false)));
      if (!hlo.dimensions().empty()) {
        TS_ASSIGN_OR_RETURN(int64_t dimension, SingleDimension(hlo, "all-to-all dimension"));
        if (hlo.operand_count() != 1) {
          return Invalid("all-to-all with a split dimension takes 1 operand, has ",
                         hlo.operand_count());
        }
        return InferAllToAllShape(operand(0), dimension, dimension, group_size);
      }
      if (group_size != 1 && hlo.operand_count() != group_size) {
        return Invalid("all-to-all has ", hlo.operand_count(), " operands but its groups have ",
                       group_size, " participants");
      }
      return InferAllToAllTupleShape(OperandShapes(hlo));
    }
    case HloOpcode::kRaggedAllToAll: {
      TS_RETURN_IF_ERROR(CheckReplicaGroups(hlo, GetGroupMode(hlo, false)).status());
      TS_RETURN_IF_ERROR(ExpectArray(operand(0), "the input of ragged-all-to-all"));
      TS_RETURN_IF_ERROR(ExpectArray(operand(1), "the output of ragged-all-to-all"));
      for (int64_t i = 2; i < 6; ++i) {
        if (!operand(i).IsArray() || !IsIntegralType(operand(i).element_type())) {
          return Invalid("ragged-all-to-all offsets and sizes must be integral arrays, got ",
                         Str(operand(i)));
        }
      }
      return operand(1);
    }
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart: {
      TS_RETURN_IF_ERROR(CheckSourceTargetPairs(hlo, GetGroupMode(hlo, false)));
      auto [input, output] = PermuteInputOutput(hlo);
      if (hlo.opcode() == HloOpcode::kCollectivePermute) return output;
      std::vector<Shape> elements = {input, output};
      if (!hlo.shape().IsTuple() || hlo.shape().tuple_size() < 2) {
        return Invalid("collective-permute-start must return (input, output, ...), got ",
                       Str(hlo.shape()));
      }
      for (int64_t i = 2; i < hlo.shape().tuple_size(); ++i) {
        elements.push_back(hlo.shape().tuple_shapes(i));
      }
      return Shape::MakeTuple(std::move(elements));
    }
    case HloOpcode::kCopyStart:
      return Shape::MakeTuple({operand(0), operand(0), u32});
    case HloOpcode::kCopyDone:
      if (!operand(0).IsTuple() || operand(0).tuple_size() < 2 ||
          !ShapesCompatible(operand(0).tuple_shapes(0), operand(0).tuple_shapes(1))) {
        return Invalid("copy-done operand must be a copy-start tuple (dest, source, ...), got ",
                       Str(operand(0)));
      }
      return operand(0).tuple_shapes(0);
    case HloOpcode::kDomain:
    case HloOpcode::kOptimizationBarrier:
      return operand(0);
    case HloOpcode::kAddDependency:
      TS_RETURN_IF_ERROR(ExpectToken(hlo, 1));
      return operand(0);
    case HloOpcode::kAfterAll:
      for (int64_t i = 0; i < hlo.operand_count(); ++i) TS_RETURN_IF_ERROR(ExpectToken(hlo, i));
      return Shape::MakeToken();
    case HloOpcode::kPartitionId:
    case HloOpcode::kReplicaId:
      return u32;
    case HloOpcode::kInfeed: {
      TS_RETURN_IF_ERROR(ExpectToken(hlo, 0));
      const Shape& shape = hlo.shape();
      if (!shape.IsTuple() || shape.tuple_size() != 2 || !shape.tuple_shapes(1).IsToken()) {
        return Invalid("infeed must return (data, token), got ", Str(shape));
      }
      return Shape::MakeTuple({shape.tuple_shapes(0), Shape::MakeToken()});
    }
    case HloOpcode::kOutfeed:
      TS_RETURN_IF_ERROR(ExpectToken(hlo, 1));
      if (attrs.outfeed_shape.has_value() && !ShapesCompatible(*attrs.outfeed_shape, operand(0))) {
        return Invalid("outfeed shape ", Str(*attrs.outfeed_shape), " does not match its operand ",
                       Str(operand(0)));
      }
      return Shape::MakeToken();
    case HloOpcode::kSend:
      TS_RETURN_IF_ERROR(ExpectToken(hlo, 1));
      return Shape::MakeTuple({operand(0), u32, Shape::MakeToken()});
    case HloOpcode::kSendDone:
      if (!operand(0).IsTuple() || operand(0).tuple_size() != 3) {
        return Invalid("send-done operand must be a send tuple, got ", Str(operand(0)));
      }
      return Shape::MakeToken();
    case HloOpcode::kRecv: {
      TS_RETURN_IF_ERROR(ExpectToken(hlo, 0));
      const Shape& shape = hlo.shape();
      if (!shape.IsTuple() || shape.tuple_size() != 3) {
        return Invalid("recv must return (data, u32[], token), got ", Str(shape));
      }
      return Shape::MakeTuple({shape.tuple_shapes(0), u32, Shape::MakeToken()});
    }
    case HloOpcode::kRecvDone:
      if (!operand(0).IsTuple() || operand(0).tuple_size() != 3) {
        return Invalid("recv-done operand must be a recv tuple, got ", Str(operand(0)));
      }
      return Shape::MakeTuple({operand(0).tuple_shapes(0), Shape::MakeToken()});
    case HloOpcode::kRng:
      return InferRng(hlo);
    case HloOpcode::kRngBitGenerator:
      return InferRngBitGenerator(hlo);
    case HloOpcode::kRngGetAndUpdateState:
      return Shape(U64, {2});
    case HloOpcode::kShuffle:
      // No shape rule is defined for shuffle yet; its declared shape stands.
      return hlo.shape();
    default:
      return Invalid(OpName(hlo.opcode()), " is not a collective op");
  }
}

}  // namespace shape_inference_internal
}  // namespace tessera
