// HloInstructionProto attribute fields <-> HloAttributes.
#include "hlo/proto/instruction_attributes_proto.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/ir/status_macros.h"
#include "hlo/proto/attribute_proto.h"
#include "hlo/proto/literal_proto.h"
#include "hlo/proto/shape_proto.h"

namespace tessera {
namespace {

absl::Status Invalid(absl::string_view message) { return absl::InvalidArgumentError(message); }

// Prefixes an error with the proto field it came from.
absl::Status InField(absl::string_view field, const absl::Status& status) {
  if (status.ok()) return status;
  return Invalid(absl::StrCat(field, ": ", status.message()));
}

template <typename T, typename Field>
std::vector<T> ToVector(const Field& field) {
  return std::vector<T>(field.begin(), field.end());
}

template <typename Field, typename T>
void Assign(const std::vector<T>& values, Field* field) {
  for (const T& value : values) field->Add(value);
}

absl::StatusOr<FusionKind> ParseFusionKind(absl::string_view text) {
  for (FusionKind kind :
       {FusionKind::kLoop, FusionKind::kInput, FusionKind::kOutput, FusionKind::kCustom}) {
    if (FusionKindString(kind) == text) return kind;
  }
  return Invalid(absl::StrCat("unknown fusion_kind \"", text, "\""));
}

absl::StatusOr<ComparisonDirection> ParseComparisonDirection(absl::string_view text) {
  for (ComparisonDirection direction :
       {ComparisonDirection::kEq, ComparisonDirection::kNe, ComparisonDirection::kGe,
        ComparisonDirection::kGt, ComparisonDirection::kLe, ComparisonDirection::kLt}) {
    if (ComparisonDirectionString(direction) == text) return direction;
  }
  return Invalid(absl::StrCat("unknown comparison_direction \"", text, "\""));
}

absl::StatusOr<ComparisonType> ParseComparisonType(absl::string_view text) {
  if (text.empty()) return ComparisonType::kDefault;
  for (ComparisonType type : {ComparisonType::kFloat, ComparisonType::kFloatTotalOrder,
                              ComparisonType::kSigned, ComparisonType::kUnsigned}) {
    if (ComparisonTypeString(type) == text) return type;
  }
  return Invalid(absl::StrCat("unknown comparison_type \"", text, "\""));
}

// An enum field whose value must be one XLA defines.
template <typename Enum>
absl::StatusOr<Enum> CheckedEnum(absl::string_view field, int value, bool (*is_valid)(int)) {
  if (!is_valid(value)) return Invalid(absl::StrCat("unknown ", field, " ", value));
  return static_cast<Enum>(value);
}

// The fields that are messages or need validation.
absl::Status StructuredAttributesFromProto(const xla::HloInstructionProto& proto, HloOpcode opcode,
                                           const Shape& shape, HloAttributes* a) {
  if (proto.has_literal()) {
    auto literal = LiteralFromProto(proto.literal());
    TS_RETURN_IF_ERROR(InField("literal", literal.status()));
    if (!ShapesCompatible(literal->shape(), shape)) {
      return Invalid(absl::StrCat("literal of shape ", literal->shape().ToString(),
                                  " does not match the instruction shape ", shape.ToString()));
    }
    a->literal = *std::move(literal);
  } else if (opcode == HloOpcode::kConstant) {
    return Invalid("constant has no literal");
  }
  if (opcode == HloOpcode::kFusion || !proto.fusion_kind().empty()) {
    TS_ASSIGN_OR_RETURN(a->fusion_kind, ParseFusionKind(proto.fusion_kind()));
  }
  if (opcode == HloOpcode::kCompare || !proto.comparison_direction().empty()) {
    TS_ASSIGN_OR_RETURN(a->comparison_direction,
                        ParseComparisonDirection(proto.comparison_direction()));
  }
  TS_ASSIGN_OR_RETURN(a->comparison_type, ParseComparisonType(proto.comparison_type()));
  if (proto.has_window()) a->window = WindowFromProto(proto.window());
  if (proto.has_convolution_dimension_numbers()) {
    a->convolution_dimension_numbers =
        ConvolutionDimensionNumbersFromProto(proto.convolution_dimension_numbers());
  }
  if (proto.has_padding_config()) a->padding_config = PaddingConfigFromProto(proto.padding_config());
  if (proto.has_outfeed_shape()) {
    auto outfeed_shape = ShapeFromProto(proto.outfeed_shape());
    TS_RETURN_IF_ERROR(InField("outfeed_shape", outfeed_shape.status()));
    a->outfeed_shape = *std::move(outfeed_shape);
  }
  if (proto.has_dot_dimension_numbers()) {
    a->dot_dimension_numbers = DotDimensionNumbersFromProto(proto.dot_dimension_numbers());
  }
  if (proto.has_ragged_dot_dimension_numbers()) {
    a->ragged_dot_dimension_numbers =
        RaggedDotDimensionNumbersFromProto(proto.ragged_dot_dimension_numbers());
  }
  if (proto.has_gather_dimension_numbers()) {
    a->gather_dimension_numbers = GatherDimensionNumbersFromProto(proto.gather_dimension_numbers());
  }
  if (proto.has_scatter_dimension_numbers()) {
    a->scatter_dimension_numbers =
        ScatterDimensionNumbersFromProto(proto.scatter_dimension_numbers());
  }
  if (proto.has_sharding()) {
    auto sharding = HloShardingFromProto(proto.sharding());
    TS_RETURN_IF_ERROR(InField("sharding", sharding.status()));
    a->sharding = *std::move(sharding);
  }
  if (proto.has_domain_entry_sharding()) {
    auto sharding = HloShardingFromProto(proto.domain_entry_sharding());
    TS_RETURN_IF_ERROR(InField("domain_entry_sharding", sharding.status()));
    a->domain_entry_sharding = *std::move(sharding);
  }
  if (proto.has_domain_exit_sharding()) {
    auto sharding = HloShardingFromProto(proto.domain_exit_sharding());
    TS_RETURN_IF_ERROR(InField("domain_exit_sharding", sharding.status()));
    a->domain_exit_sharding = *std::move(sharding);
  }
  if (proto.has_precision_config()) {
    auto config = PrecisionConfigFromProto(proto.precision_config());
    TS_RETURN_IF_ERROR(InField("precision_config", config.status()));
    a->precision_config = *std::move(config);
  }
  for (int i = 0; i < proto.operand_shapes_with_layout_size(); ++i) {
    auto operand_shape = ShapeFromProto(proto.operand_shapes_with_layout(i));
    TS_RETURN_IF_ERROR(
        InField(absl::StrCat("operand_shapes_with_layout ", i), operand_shape.status()));
    a->operand_shapes_with_layout.push_back(*std::move(operand_shape));
  }
  if (proto.has_triangular_solve_options()) {
    auto options = TriangularSolveOptionsFromProto(proto.triangular_solve_options());
    TS_RETURN_IF_ERROR(InField("triangular_solve_options", options.status()));
    a->triangular_solve_options = *std::move(options);
  }
  if (proto.has_cholesky_options()) a->cholesky_options = {proto.cholesky_options().lower()};
  if (proto.has_statistics_viz()) a->statistics_viz = StatisticsVizFromProto(proto.statistics_viz());
  if (proto.has_metadata()) a->metadata = OpMetadataFromProto(proto.metadata());
  return absl::OkStatus();
}

// Replica groups, in any of the forms XLA versions have written: explicit
// groups in the legacy `replica_groups` field or in `collective_device_list`;
// the iota form in `iota_collective_device_list` (newest) or inside
// `collective_device_list` (2024-25).
void CollectiveDevicesFromProto(const xla::HloInstructionProto& proto, HloAttributes* a) {
  const xla::CollectiveDeviceListProto& list = proto.collective_device_list();
  if (proto.replica_groups_size() > 0) {
    a->replica_groups = ReplicaGroupsFromProto(proto.replica_groups());
  } else {
    a->replica_groups = ReplicaGroupsFromProto(list.replica_groups());
  }
  if (proto.has_iota_collective_device_list()) {
    a->iota_replica_groups = IotaReplicaGroupListFromProto(proto.iota_collective_device_list());
  } else if (list.has_iota_replica_group_list()) {
    a->iota_replica_groups = IotaReplicaGroupListFromProto(list.iota_replica_group_list());
  }
}

}  // namespace

absl::Status InstructionAttributesFromProto(const xla::HloInstructionProto& proto,
                                            HloOpcode opcode, const Shape& shape,
                                            HloAttributes* a) {
  TS_RETURN_IF_ERROR(StructuredAttributesFromProto(proto, opcode, shape, a));
  CollectiveDevicesFromProto(proto, a);
  a->dimensions = ToVector<int64_t>(proto.dimensions());
  a->parameter_number = proto.parameter_number();
  a->tuple_index = proto.tuple_index();
  a->feature_group_count = proto.feature_group_count() == 0 ? 1 : proto.feature_group_count();
  a->batch_group_count = proto.batch_group_count() == 0 ? 1 : proto.batch_group_count();
  for (const auto& d : proto.slice_dimensions()) {
    a->slice_dimensions.push_back({d.start(), d.limit(), d.stride()});
  }
  a->exponent_bits = proto.exponent_bits();
  a->mantissa_bits = proto.mantissa_bits();
  a->dynamic_slice_sizes = ToVector<int64_t>(proto.dynamic_slice_sizes());
  a->outfeed_config = proto.outfeed_config();
  a->infeed_config = proto.infeed_config();
  TS_ASSIGN_OR_RETURN(a->distribution, CheckedEnum<RandomDistribution>(
                                           "distribution", proto.distribution(),
                                           xla::RandomDistribution_IsValid));
  a->epsilon = proto.epsilon();
  a->feature_index = proto.feature_index();
  // all_reduce_id is the pre-channel name of channel_id.
  a->channel_id = proto.channel_id() == 0 ? proto.all_reduce_id() : proto.channel_id();
  a->custom_call_target = proto.custom_call_target();
  TS_ASSIGN_OR_RETURN(a->fft_type, CheckedEnum<FftType>("fft_type", proto.fft_type(),
                                                        xla::FftType_IsValid));
  a->fft_length = ToVector<int64_t>(proto.fft_length());
  a->gather_slice_sizes = ToVector<int64_t>(proto.gather_slice_sizes());
  a->backend_config = proto.backend_config();
  a->use_global_device_ids = proto.use_global_device_ids();
  a->is_host_transfer = proto.is_host_transfer();
  a->is_stable = proto.is_stable();
  for (const xla::SourceTarget& pair : proto.source_target_pairs()) {
    a->source_target_pairs.emplace_back(pair.source(), pair.target());
  }
  a->constrain_layout = proto.constrain_layout();
  a->parameter_replication =
      ToVector<bool>(proto.parameter_replication().replicated_at_leaf_buffers());
  a->custom_call_has_side_effect = proto.custom_call_has_side_effect();
  for (const xla::OutputOperandAliasing& aliasing : proto.output_operand_aliasing()) {
    a->output_operand_aliasing.push_back(OutputOperandAliasingFromProto(aliasing));
  }
  TS_ASSIGN_OR_RETURN(a->custom_call_schedule,
                      CheckedEnum<CustomCallSchedule>("custom_call_schedule",
                                                      proto.custom_call_schedule(),
                                                      xla::CustomCallSchedule_IsValid));
  a->delta = proto.delta();
  a->indices_are_sorted = proto.indices_are_sorted();
  a->frontend_attributes = FrontendAttributesFromProto(proto.frontend_attributes());
  a->unique_indices = proto.unique_indices();
  TS_ASSIGN_OR_RETURN(a->rng_algorithm,
                      CheckedEnum<RandomAlgorithm>("rng_algorithm", proto.rng_algorithm(),
                                                   xla::RandomAlgorithm_IsValid));
  if (proto.optional_cross_program_prefetch_index_case() ==
      xla::HloInstructionProto::kCrossProgramPrefetchIndex) {
    a->cross_program_prefetch_index = proto.cross_program_prefetch_index();
  } else if (proto.is_cross_program_prefetch()) {
    a->cross_program_prefetch_index = 0;
  }
  TS_ASSIGN_OR_RETURN(a->padding_type, CheckedEnum<PaddingType>("padding_type",
                                                                proto.padding_type(),
                                                                xla::PaddingType_IsValid));
  if (opcode == HloOpcode::kCustomCall || proto.custom_call_api_version() != 0) {
    TS_ASSIGN_OR_RETURN(a->custom_call_api_version,
                        CheckedEnum<CustomCallApiVersion>("custom_call_api_version",
                                                          proto.custom_call_api_version(),
                                                          xla::CustomCallApiVersion_IsValid));
  }
  a->async_execution_thread = proto.async_execution_thread();
  a->k = proto.k();
  a->largest = proto.largest();
  a->is_composite = proto.is_composite();
  return absl::OkStatus();
}

absl::Status InstructionAttributesToProto(HloOpcode opcode, const HloAttributes& a,
                                          xla::HloInstructionProto* proto) {
  Assign(a.dimensions, proto->mutable_dimensions());
  proto->set_parameter_number(a.parameter_number);
  proto->set_tuple_index(a.tuple_index);
  if (a.literal.has_value()) {
    auto literal = LiteralToProto(*a.literal);
    TS_RETURN_IF_ERROR(InField("literal", literal.status()));
    *proto->mutable_literal() = *std::move(literal);
  }
  if (opcode == HloOpcode::kFusion || a.fusion_kind != FusionKind::kLoop) {
    proto->set_fusion_kind(std::string(FusionKindString(a.fusion_kind)));
  }
  if (a.window) *proto->mutable_window() = WindowToProto(*a.window);
  if (a.convolution_dimension_numbers) {
    *proto->mutable_convolution_dimension_numbers() =
        ConvolutionDimensionNumbersToProto(*a.convolution_dimension_numbers);
  }
  if (opcode == HloOpcode::kConvolution || a.feature_group_count != 1) {
    proto->set_feature_group_count(a.feature_group_count);
  }
  if (opcode == HloOpcode::kConvolution || a.batch_group_count != 1) {
    proto->set_batch_group_count(a.batch_group_count);
  }
  for (const SliceDimension& d : a.slice_dimensions) {
    auto* p = proto->add_slice_dimensions();
    p->set_start(d.start);
    p->set_limit(d.limit);
    p->set_stride(d.stride);
  }
  proto->set_exponent_bits(a.exponent_bits);
  proto->set_mantissa_bits(a.mantissa_bits);
  Assign(a.dynamic_slice_sizes, proto->mutable_dynamic_slice_sizes());
  if (a.padding_config) *proto->mutable_padding_config() = PaddingConfigToProto(*a.padding_config);
  proto->set_outfeed_config(a.outfeed_config);
  proto->set_distribution(static_cast<xla::RandomDistribution>(a.distribution));
  proto->set_epsilon(a.epsilon);
  proto->set_feature_index(a.feature_index);
  proto->set_channel_id(a.channel_id);
  proto->set_infeed_config(a.infeed_config);
  proto->set_custom_call_target(a.custom_call_target);
  if (a.outfeed_shape) *proto->mutable_outfeed_shape() = ShapeToProto(*a.outfeed_shape);
  if (a.dot_dimension_numbers) {
    *proto->mutable_dot_dimension_numbers() = DotDimensionNumbersToProto(*a.dot_dimension_numbers);
  }
  if (a.ragged_dot_dimension_numbers) {
    *proto->mutable_ragged_dot_dimension_numbers() =
        RaggedDotDimensionNumbersToProto(*a.ragged_dot_dimension_numbers);
  }
  proto->set_fft_type(static_cast<xla::FftType>(a.fft_type));
  Assign(a.fft_length, proto->mutable_fft_length());
  if (opcode == HloOpcode::kCompare || a.comparison_direction != ComparisonDirection::kEq) {
    proto->set_comparison_direction(std::string(ComparisonDirectionString(a.comparison_direction)));
  }
  if (a.comparison_type != ComparisonType::kDefault) {
    proto->set_comparison_type(std::string(ComparisonTypeString(a.comparison_type)));
  }
  if (a.gather_dimension_numbers) {
    *proto->mutable_gather_dimension_numbers() =
        GatherDimensionNumbersToProto(*a.gather_dimension_numbers);
  }
  Assign(a.gather_slice_sizes, proto->mutable_gather_slice_sizes());
  if (a.sharding) *proto->mutable_sharding() = HloShardingToProto(*a.sharding);
  proto->set_backend_config(a.backend_config);
  if (HloOpcodeIsCollective(opcode) || !a.replica_groups.empty() || a.iota_replica_groups) {
    xla::CollectiveDeviceListProto* list = proto->mutable_collective_device_list();
    for (const ReplicaGroup& group : a.replica_groups) {
      Assign(group.replica_ids, list->add_replica_groups()->mutable_replica_ids());
    }
    if (a.iota_replica_groups) {
      // Both places XLA versions read it from; a newer parser keeps field 92.
      *list->mutable_iota_replica_group_list() = IotaReplicaGroupListToProto(*a.iota_replica_groups);
      *proto->mutable_iota_collective_device_list() = list->iota_replica_group_list();
    }
  }
  proto->set_use_global_device_ids(a.use_global_device_ids);
  proto->set_is_host_transfer(a.is_host_transfer);
  proto->set_is_stable(a.is_stable);
  if (a.scatter_dimension_numbers) {
    *proto->mutable_scatter_dimension_numbers() =
        ScatterDimensionNumbersToProto(*a.scatter_dimension_numbers);
  }
  if (a.precision_config != PrecisionConfig()) {
    *proto->mutable_precision_config() = PrecisionConfigToProto(a.precision_config);
  }
  for (const auto& [source, target] : a.source_target_pairs) {
    xla::SourceTarget* pair = proto->add_source_target_pairs();
    pair->set_source(source);
    pair->set_target(target);
  }
  if (a.domain_entry_sharding) {
    *proto->mutable_domain_entry_sharding() = HloShardingToProto(*a.domain_entry_sharding);
  }
  if (a.domain_exit_sharding) {
    *proto->mutable_domain_exit_sharding() = HloShardingToProto(*a.domain_exit_sharding);
  }
  proto->set_constrain_layout(a.constrain_layout);
  for (const Shape& shape : a.operand_shapes_with_layout) {
    *proto->add_operand_shapes_with_layout() = ShapeToProto(shape);
  }
  if (a.triangular_solve_options) {
    *proto->mutable_triangular_solve_options() =
        TriangularSolveOptionsToProto(*a.triangular_solve_options);
  }
  if (a.cholesky_options) proto->mutable_cholesky_options()->set_lower(a.cholesky_options->lower);
  if (!a.parameter_replication.empty()) {
    Assign(a.parameter_replication,
           proto->mutable_parameter_replication()->mutable_replicated_at_leaf_buffers());
  }
  proto->set_custom_call_has_side_effect(a.custom_call_has_side_effect);
  for (const OutputOperandAliasing& aliasing : a.output_operand_aliasing) {
    *proto->add_output_operand_aliasing() = OutputOperandAliasingToProto(aliasing);
  }
  proto->set_custom_call_schedule(static_cast<xla::CustomCallSchedule>(a.custom_call_schedule));
  proto->set_delta(a.delta);
  proto->set_indices_are_sorted(a.indices_are_sorted);
  if (!a.frontend_attributes.empty()) {
    *proto->mutable_frontend_attributes() = FrontendAttributesToProto(a.frontend_attributes);
  }
  proto->set_unique_indices(a.unique_indices);
  proto->set_rng_algorithm(static_cast<xla::RandomAlgorithm>(a.rng_algorithm));
  if (a.cross_program_prefetch_index) {
    proto->set_cross_program_prefetch_index(*a.cross_program_prefetch_index);
  }
  proto->set_padding_type(static_cast<xla::PaddingType>(a.padding_type));
  if (opcode == HloOpcode::kCustomCall ||
      a.custom_call_api_version != CustomCallApiVersion::kOriginal) {
    proto->set_custom_call_api_version(
        static_cast<xla::CustomCallApiVersion>(a.custom_call_api_version));
  }
  proto->set_async_execution_thread(a.async_execution_thread);
  proto->set_k(a.k);
  proto->set_largest(a.largest);
  if (a.statistics_viz) *proto->mutable_statistics_viz() = StatisticsVizToProto(*a.statistics_viz);
  proto->set_is_composite(a.is_composite);
  if (!a.metadata.empty()) *proto->mutable_metadata() = OpMetadataToProto(a.metadata);
  return absl::OkStatus();
}

}  // namespace tessera
