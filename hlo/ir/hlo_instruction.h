// HloInstruction: one operation of an HLO computation.
//
// An instruction has an opcode, a result shape, operands, users (kept in
// sync with operands by the mutation API), the computations it calls, and
// the attributes its opcode uses.  Attributes live in one plain record,
// `HloAttributes`, that mirrors the fields of XLA's HloInstructionProto, so
// text, proto and IR map one to one; typed accessors below give the common
// ones names.  Instructions are owned by their HloComputation.
#ifndef TESSERA_HLO_IR_HLO_INSTRUCTION_H_
#define TESSERA_HLO_IR_HLO_INSTRUCTION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "hlo/ir/hlo_attributes.h"
#include "hlo/ir/hlo_opcode.h"
#include "hlo/ir/literal.h"
#include "hlo/ir/shape.h"

namespace tessera {

class HloComputation;
class HloModule;

// Every attribute an opcode may carry.  Which fields an opcode uses follows
// XLA (see the HloInstructionProto field comments); unused fields keep their
// defaults.  `dimensions` is shared the way XLA's proto shares it:
// broadcast/transpose/reduce/reverse/sort/map/all-gather/all-to-all
// dimension lists, the concatenate dimension, the iota dimension and the
// get-dimension-size dimension.
struct HloAttributes {
  std::vector<int64_t> dimensions;
  int64_t parameter_number = 0;
  int64_t tuple_index = 0;
  std::optional<Literal> literal;  // kConstant
  FusionKind fusion_kind = FusionKind::kLoop;
  std::optional<Window> window;
  std::optional<ConvolutionDimensionNumbers> convolution_dimension_numbers;
  int64_t feature_group_count = 1;
  int64_t batch_group_count = 1;
  std::vector<SliceDimension> slice_dimensions;
  int32_t exponent_bits = 0;
  int32_t mantissa_bits = 0;
  std::vector<int64_t> dynamic_slice_sizes;
  std::optional<PaddingConfig> padding_config;
  std::string outfeed_config;
  RandomDistribution distribution = RandomDistribution::kInvalid;
  float epsilon = 0;
  int64_t feature_index = 0;
  int64_t channel_id = 0;  // <= 0: none
  std::string infeed_config;
  std::string custom_call_target;
  std::optional<Shape> outfeed_shape;
  std::optional<DotDimensionNumbers> dot_dimension_numbers;
  std::optional<RaggedDotDimensionNumbers> ragged_dot_dimension_numbers;
  FftType fft_type = FftType::kFft;
  std::vector<int64_t> fft_length;
  ComparisonDirection comparison_direction = ComparisonDirection::kEq;
  ComparisonType comparison_type = ComparisonType::kDefault;
  std::optional<GatherDimensionNumbers> gather_dimension_numbers;
  std::vector<int64_t> gather_slice_sizes;
  std::optional<HloSharding> sharding;
  std::string backend_config;  // raw text/bytes, kept verbatim
  std::vector<ReplicaGroup> replica_groups;
  std::optional<IotaReplicaGroupList> iota_replica_groups;
  bool use_global_device_ids = false;
  bool is_host_transfer = false;
  bool is_stable = false;
  std::optional<ScatterDimensionNumbers> scatter_dimension_numbers;
  PrecisionConfig precision_config;
  std::vector<std::pair<int64_t, int64_t>> source_target_pairs;
  std::optional<HloSharding> domain_entry_sharding;
  std::optional<HloSharding> domain_exit_sharding;
  bool constrain_layout = false;
  std::vector<Shape> operand_shapes_with_layout;
  std::optional<TriangularSolveOptions> triangular_solve_options;
  std::optional<CholeskyOptions> cholesky_options;
  std::vector<bool> parameter_replication;
  bool custom_call_has_side_effect = false;
  std::vector<OutputOperandAliasing> output_operand_aliasing;
  CustomCallSchedule custom_call_schedule = CustomCallSchedule::kNone;
  int64_t delta = 0;
  bool indices_are_sorted = false;
  FrontendAttributes frontend_attributes;
  bool unique_indices = false;
  RandomAlgorithm rng_algorithm = RandomAlgorithm::kDefault;
  std::optional<int32_t> cross_program_prefetch_index;
  PaddingType padding_type = PaddingType::kInvalid;
  CustomCallApiVersion custom_call_api_version = CustomCallApiVersion::kOriginal;
  std::string async_execution_thread;  // empty: main thread
  int64_t k = 0;
  bool largest = false;
  std::optional<StatisticsViz> statistics_viz;
  bool is_composite = false;
  OpMetadata metadata;

  bool operator==(const HloAttributes&) const = default;
};

class HloInstruction {
 public:
  // A new, parentless instruction.  `operands` must outlive it (they belong
  // to the same computation once it is added).
  static std::unique_ptr<HloInstruction> Create(HloOpcode opcode, const Shape& shape,
                                                absl::Span<HloInstruction* const> operands);
  static std::unique_ptr<HloInstruction> CreateParameter(int64_t number, const Shape& shape,
                                                         std::string name);
  static std::unique_ptr<HloInstruction> CreateConstant(Literal literal);
  static std::unique_ptr<HloInstruction> CreateUnary(const Shape& shape, HloOpcode opcode,
                                                     HloInstruction* operand);
  static std::unique_ptr<HloInstruction> CreateBinary(const Shape& shape, HloOpcode opcode,
                                                      HloInstruction* lhs, HloInstruction* rhs);
  static std::unique_ptr<HloInstruction> CreateTernary(const Shape& shape, HloOpcode opcode,
                                                       HloInstruction* a, HloInstruction* b,
                                                       HloInstruction* c);
  static std::unique_ptr<HloInstruction> CreateCompare(const Shape& shape, HloInstruction* lhs,
                                                       HloInstruction* rhs,
                                                       ComparisonDirection direction,
                                                       ComparisonType type = ComparisonType::kDefault);
  static std::unique_ptr<HloInstruction> CreateBroadcast(const Shape& shape,
                                                         HloInstruction* operand,
                                                         std::vector<int64_t> dimensions);
  static std::unique_ptr<HloInstruction> CreateReshape(const Shape& shape,
                                                       HloInstruction* operand);
  static std::unique_ptr<HloInstruction> CreateTranspose(const Shape& shape,
                                                         HloInstruction* operand,
                                                         std::vector<int64_t> permutation);
  static std::unique_ptr<HloInstruction> CreateConvert(const Shape& shape,
                                                       HloInstruction* operand);
  static std::unique_ptr<HloInstruction> CreateTuple(absl::Span<HloInstruction* const> elements);
  static std::unique_ptr<HloInstruction> CreateGetTupleElement(const Shape& shape,
                                                               HloInstruction* operand,
                                                               int64_t index);
  static std::unique_ptr<HloInstruction> CreateIota(const Shape& shape, int64_t dimension);
  static std::unique_ptr<HloInstruction> CreateSlice(const Shape& shape, HloInstruction* operand,
                                                     std::vector<SliceDimension> slice);
  static std::unique_ptr<HloInstruction> CreateReduce(const Shape& shape,
                                                      absl::Span<HloInstruction* const> operands,
                                                      std::vector<int64_t> dimensions,
                                                      HloComputation* reducer);
  static std::unique_ptr<HloInstruction> CreateDot(const Shape& shape, HloInstruction* lhs,
                                                   HloInstruction* rhs,
                                                   DotDimensionNumbers dnums);
  static std::unique_ptr<HloInstruction> CreateCall(const Shape& shape,
                                                    absl::Span<HloInstruction* const> operands,
                                                    HloComputation* callee);
  static std::unique_ptr<HloInstruction> CreateFusion(const Shape& shape, FusionKind kind,
                                                      absl::Span<HloInstruction* const> operands,
                                                      HloComputation* fused);
  static std::unique_ptr<HloInstruction> CreateWhile(const Shape& shape,
                                                     HloComputation* condition,
                                                     HloComputation* body,
                                                     HloInstruction* init);

  ~HloInstruction();
  HloInstruction(const HloInstruction&) = delete;
  HloInstruction& operator=(const HloInstruction&) = delete;

  HloOpcode opcode() const { return opcode_; }
  const std::string& name() const { return name_; }
  // Names are made unique by the module when the instruction is added.
  void SetName(std::string name);
  int64_t unique_id() const { return unique_id_; }
  void SetUniqueId(int64_t id) { unique_id_ = id; }

  const Shape& shape() const { return shape_; }
  Shape* mutable_shape() { return &shape_; }

  // Operands and users.
  int64_t operand_count() const { return static_cast<int64_t>(operands_.size()); }
  HloInstruction* operand(int64_t i) const { return operands_[i]; }
  const std::vector<HloInstruction*>& operands() const { return operands_; }
  // Each user once, in the order they started using this instruction.
  const std::vector<HloInstruction*>& users() const { return users_; }
  int64_t user_count() const { return static_cast<int64_t>(users_.size()); }
  bool IsUserOf(const HloInstruction* operand) const;
  // Positions at which `operand` appears among this instruction's operands.
  std::vector<int64_t> OperandIndices(const HloInstruction* operand) const;

  // Mutation API: these keep operands and users consistent.
  void AppendOperand(HloInstruction* operand);
  absl::Status ReplaceOperandWith(int64_t index, HloInstruction* new_operand);
  // Every use of `old_operand` in this instruction becomes `new_operand`.
  absl::Status ReplaceUseWith(HloInstruction* old_operand, HloInstruction* new_operand);
  // Every user of this instruction uses `replacement` instead (shapes must
  // be compatible); the root of the parent computation moves too.
  absl::Status ReplaceAllUsesWith(HloInstruction* replacement);
  // Drops all operands (and this instruction from their users); used
  // before removal.
  void DetachFromOperands();

  // Control dependencies (`control-predecessors={...}` in text).
  const std::vector<HloInstruction*>& control_predecessors() const {
    return control_predecessors_;
  }
  const std::vector<HloInstruction*>& control_successors() const { return control_successors_; }
  absl::Status AddControlDependencyTo(HloInstruction* successor);
  absl::Status RemoveControlDependencyTo(HloInstruction* successor);
  void DropAllControlDeps();

  // Called computations, in XLA's order for the opcode: while {condition,
  // body}; conditional: branches; select-and-scatter {select, scatter};
  // reduce/map/sort/scatter/reduce-window/all-reduce/call: {to_apply};
  // fusion {fused computation}; custom-call and async ops: as written.
  const std::vector<HloComputation*>& called_computations() const {
    return called_computations_;
  }
  void AppendCalledComputation(HloComputation* computation);
  void ReplaceCalledComputation(int64_t index, HloComputation* computation);
  void ClearCalledComputations();
  HloComputation* to_apply() const;
  HloComputation* while_condition() const { return called_computations_.at(0); }
  HloComputation* while_body() const { return called_computations_.at(1); }
  HloComputation* fused_computation() const { return called_computations_.at(0); }

  // The computation that owns this instruction.
  HloComputation* parent() const { return parent_; }
  // Whether its parent computation belongs to a module (whose computations
  // count their callers: HloComputation::caller_count).
  bool InModule() const;
  void set_parent(HloComputation* parent) { parent_ = parent; }

  // Attributes.
  const HloAttributes& attrs() const { return attrs_; }
  HloAttributes& mutable_attrs() { return attrs_; }
  const std::vector<int64_t>& dimensions() const { return attrs_.dimensions; }
  int64_t dimensions(int64_t i) const { return attrs_.dimensions[i]; }
  int64_t parameter_number() const { return attrs_.parameter_number; }
  int64_t tuple_index() const { return attrs_.tuple_index; }
  const Literal& literal() const { return *attrs_.literal; }
  FusionKind fusion_kind() const { return attrs_.fusion_kind; }
  ComparisonDirection comparison_direction() const { return attrs_.comparison_direction; }
  // The comparison type in force: the explicit one or the element type's default.
  ComparisonType EffectiveComparisonType() const;
  const Window& window() const { return *attrs_.window; }
  const ConvolutionDimensionNumbers& convolution_dimension_numbers() const {
    return *attrs_.convolution_dimension_numbers;
  }
  const DotDimensionNumbers& dot_dimension_numbers() const {
    return *attrs_.dot_dimension_numbers;
  }
  const GatherDimensionNumbers& gather_dimension_numbers() const {
    return *attrs_.gather_dimension_numbers;
  }
  const ScatterDimensionNumbers& scatter_dimension_numbers() const {
    return *attrs_.scatter_dimension_numbers;
  }
  const PaddingConfig& padding_config() const { return *attrs_.padding_config; }
  const std::vector<SliceDimension>& slice_dimensions() const { return attrs_.slice_dimensions; }
  const OpMetadata& metadata() const { return attrs_.metadata; }
  bool has_sharding() const { return attrs_.sharding.has_value(); }

  // Facts from the opcode table and attributes.
  bool IsElementwise() const;
  // True for ops that must not be removed or duplicated even if unused
  // (side-effecting ops, custom-calls marked so, collectives with channels).
  bool HasSideEffect() const;
  bool IsRoot() const;

  // True when opcode, shape (with layout), attributes and called
  // computations are equal; operands are compared by `operands_equal`.
  // Used by CSE and tests.
  template <typename OperandsEqual>
  bool Identical(const HloInstruction& other, OperandsEqual&& operands_equal) const {
    if (opcode_ != other.opcode_ || shape_ != other.shape_ ||
        operands_.size() != other.operands_.size() ||
        called_computations_ != other.called_computations_ ||
        !AttributesEqual(other)) {
      return false;
    }
    for (size_t i = 0; i < operands_.size(); ++i) {
      if (!operands_equal(operands_[i], other.operands_[i])) return false;
    }
    return true;
  }
  // Attributes equal, ignoring metadata (which never changes semantics).
  bool AttributesEqual(const HloInstruction& other) const;

  // A parentless copy with the given shape and operands; called
  // computations are shared (not cloned).
  std::unique_ptr<HloInstruction> CloneWithNewOperands(
      const Shape& shape, absl::Span<HloInstruction* const> new_operands) const;

 private:
  HloInstruction(HloOpcode opcode, const Shape& shape);
  void AddUser(HloInstruction* user);
  void RemoveUser(HloInstruction* user);

  int64_t unique_id_ = -1;
  HloOpcode opcode_;
  std::string name_;
  Shape shape_;
  std::vector<HloInstruction*> operands_;
  std::vector<HloInstruction*> users_;
  absl::flat_hash_set<const HloInstruction*> user_set_;  // the same, for lookups
  std::vector<HloInstruction*> control_predecessors_;
  std::vector<HloInstruction*> control_successors_;
  std::vector<HloComputation*> called_computations_;
  HloComputation* parent_ = nullptr;
  HloAttributes attrs_;
};

absl::string_view ComparisonDirectionString(ComparisonDirection direction);  // "EQ"
absl::string_view ComparisonTypeString(ComparisonType type);                  // "TOTALORDER"
absl::string_view FusionKindString(FusionKind kind);                          // "kLoop"

// XLA's annotation custom calls ("Sharding" from with_sharding_constraint,
// "SPMDFullToShardShape" / "SPMDShardToFullShape" from shard_map,
// "MoveToHost" / "MoveToDevice" from memory-kind placement): instructions
// for the SPMD partitioner and the host-offloader that, on one device,
// pass their one operand through unchanged.  True for such a call whose
// result has its operand's dimensions and element type.
bool IsAnnotationCustomCall(const HloInstruction& hlo);

// The number of participants in the largest replica group of a collective
// (all of the module's replicas times partitions when it lists no groups;
// 1 outside a module).
int64_t CollectiveGroupSize(const HloInstruction& hlo);

}  // namespace tessera

#endif  // TESSERA_HLO_IR_HLO_INSTRUCTION_H_
