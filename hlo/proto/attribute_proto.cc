// Attribute records <-> xla.* messages, field for field.
#include "hlo/proto/attribute_proto.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "hlo/ir/status_macros.h"
#include "hlo/proto/shape_proto.h"

namespace tessera {
namespace {

absl::Status Invalid(absl::string_view message) { return absl::InvalidArgumentError(message); }

template <typename T, typename Field>
std::vector<T> ToVector(const Field& field) {
  return std::vector<T>(field.begin(), field.end());
}

template <typename Field, typename T>
void Assign(const std::vector<T>& values, Field* field) {
  field->Clear();
  field->Reserve(static_cast<int>(values.size()));
  for (const T& value : values) field->Add(value);
}

absl::StatusOr<HloSharding::Type> ShardingTypeFromProto(int value) {
  if (!xla::OpSharding::Type_IsValid(value)) {
    return Invalid(absl::StrCat("sharding has unknown type ", value));
  }
  return static_cast<HloSharding::Type>(value);
}

absl::StatusOr<HloSharding> HloShardingFromProtoAtDepth(const xla::OpSharding& proto,
                                                        int depth) {
  if (depth > kMaxProtoNestingDepth) {
    return Invalid(absl::StrCat("sharding nests tuples deeper than ", kMaxProtoNestingDepth));
  }
  HloSharding sharding;
  TS_ASSIGN_OR_RETURN(sharding.type, ShardingTypeFromProto(proto.type()));
  sharding.tile_assignment_dimensions = ToVector<int64_t>(proto.tile_assignment_dimensions());
  sharding.tile_assignment_devices = ToVector<int64_t>(proto.tile_assignment_devices());
  sharding.iota_reshape_dims = ToVector<int64_t>(proto.iota_reshape_dims());
  sharding.iota_transpose_perm = ToVector<int64_t>(proto.iota_transpose_perm());
  for (const xla::OpSharding& element : proto.tuple_shardings()) {
    TS_ASSIGN_OR_RETURN(HloSharding element_sharding,
                        HloShardingFromProtoAtDepth(element, depth + 1));
    sharding.tuple_shardings.push_back(std::move(element_sharding));
  }
  sharding.replicate_on_last_tile_dim = proto.replicate_on_last_tile_dim();
  for (int type : proto.last_tile_dims()) {
    TS_ASSIGN_OR_RETURN(HloSharding::Type last_tile_type, ShardingTypeFromProto(type));
    sharding.last_tile_dims.push_back(last_tile_type);
  }
  for (const xla::OpMetadata& metadata : proto.metadata()) {
    sharding.metadata.push_back(OpMetadataFromProto(metadata));
  }
  sharding.is_shard_group = proto.is_shard_group();
  sharding.shard_group_id = proto.shard_group_id();
  if (!xla::OpSharding::ShardGroupType_IsValid(proto.shard_group_type())) {
    return Invalid(absl::StrCat("sharding has unknown shard_group_type ",
                                proto.shard_group_type()));
  }
  sharding.shard_group_type = proto.shard_group_type();
  return sharding;
}

}  // namespace

absl::StatusOr<HloSharding> HloShardingFromProto(const xla::OpSharding& proto) {
  return HloShardingFromProtoAtDepth(proto, 0);
}

xla::OpSharding HloShardingToProto(const HloSharding& sharding) {
  xla::OpSharding proto;
  proto.set_type(static_cast<xla::OpSharding::Type>(sharding.type));
  Assign(sharding.tile_assignment_dimensions, proto.mutable_tile_assignment_dimensions());
  Assign(sharding.tile_assignment_devices, proto.mutable_tile_assignment_devices());
  Assign(sharding.iota_reshape_dims, proto.mutable_iota_reshape_dims());
  for (int64_t dimension : sharding.iota_transpose_perm) {
    proto.add_iota_transpose_perm(static_cast<int32_t>(dimension));
  }
  for (const HloSharding& element : sharding.tuple_shardings) {
    *proto.add_tuple_shardings() = HloShardingToProto(element);
  }
  proto.set_replicate_on_last_tile_dim(sharding.replicate_on_last_tile_dim);
  for (HloSharding::Type type : sharding.last_tile_dims) {
    proto.add_last_tile_dims(static_cast<xla::OpSharding::Type>(type));
  }
  for (const OpMetadata& metadata : sharding.metadata) {
    *proto.add_metadata() = OpMetadataToProto(metadata);
  }
  proto.set_is_shard_group(sharding.is_shard_group);
  proto.set_shard_group_id(sharding.shard_group_id);
  proto.set_shard_group_type(static_cast<xla::OpSharding::ShardGroupType>(
      sharding.shard_group_type));
  return proto;
}

OpMetadata OpMetadataFromProto(const xla::OpMetadata& proto) {
  OpMetadata metadata;
  metadata.op_type = proto.op_type();
  metadata.op_name = proto.op_name();
  metadata.source_file = proto.source_file();
  metadata.source_line = proto.source_line();
  metadata.source_end_line = proto.source_end_line();
  metadata.source_column = proto.source_column();
  metadata.source_end_column = proto.source_end_column();
  for (int type : proto.profile_type()) metadata.profile_type.push_back(type);
  metadata.deduplicated_name = proto.deduplicated_name();
  metadata.preserve_layout = proto.preserve_layout();
  metadata.stack_frame_id = proto.stack_frame_id();
  metadata.scheduling_name = proto.scheduling_name();
  return metadata;
}

xla::OpMetadata OpMetadataToProto(const OpMetadata& metadata) {
  xla::OpMetadata proto;
  proto.set_op_type(metadata.op_type);
  proto.set_op_name(metadata.op_name);
  proto.set_source_file(metadata.source_file);
  proto.set_source_line(metadata.source_line);
  proto.set_source_end_line(metadata.source_end_line);
  proto.set_source_column(metadata.source_column);
  proto.set_source_end_column(metadata.source_end_column);
  for (int32_t type : metadata.profile_type) {
    proto.add_profile_type(static_cast<xla::ProfileType>(type));
  }
  proto.set_deduplicated_name(metadata.deduplicated_name);
  proto.set_preserve_layout(metadata.preserve_layout);
  proto.set_stack_frame_id(metadata.stack_frame_id);
  proto.set_scheduling_name(metadata.scheduling_name);
  return proto;
}

Window WindowFromProto(const xla::Window& proto) {
  Window window;
  for (const xla::WindowDimension& d : proto.dimensions()) {
    window.dimensions.push_back({d.size(), d.stride(), d.padding_low(), d.padding_high(),
                                 d.window_dilation(), d.base_dilation(), d.window_reversal()});
  }
  return window;
}

xla::Window WindowToProto(const Window& window) {
  xla::Window proto;
  for (const WindowDimension& d : window.dimensions) {
    xla::WindowDimension* p = proto.add_dimensions();
    p->set_size(d.size);
    p->set_stride(d.stride);
    p->set_padding_low(d.padding_low);
    p->set_padding_high(d.padding_high);
    p->set_window_dilation(d.window_dilation);
    p->set_base_dilation(d.base_dilation);
    p->set_window_reversal(d.window_reversal);
  }
  return proto;
}

ConvolutionDimensionNumbers ConvolutionDimensionNumbersFromProto(
    const xla::ConvolutionDimensionNumbers& proto) {
  ConvolutionDimensionNumbers dnums;
  dnums.input_batch_dimension = proto.input_batch_dimension();
  dnums.input_feature_dimension = proto.input_feature_dimension();
  dnums.input_spatial_dimensions = ToVector<int64_t>(proto.input_spatial_dimensions());
  dnums.kernel_input_feature_dimension = proto.kernel_input_feature_dimension();
  dnums.kernel_output_feature_dimension = proto.kernel_output_feature_dimension();
  dnums.kernel_spatial_dimensions = ToVector<int64_t>(proto.kernel_spatial_dimensions());
  dnums.output_batch_dimension = proto.output_batch_dimension();
  dnums.output_feature_dimension = proto.output_feature_dimension();
  dnums.output_spatial_dimensions = ToVector<int64_t>(proto.output_spatial_dimensions());
  return dnums;
}

xla::ConvolutionDimensionNumbers ConvolutionDimensionNumbersToProto(
    const ConvolutionDimensionNumbers& dnums) {
  xla::ConvolutionDimensionNumbers proto;
  proto.set_input_batch_dimension(dnums.input_batch_dimension);
  proto.set_input_feature_dimension(dnums.input_feature_dimension);
  Assign(dnums.input_spatial_dimensions, proto.mutable_input_spatial_dimensions());
  proto.set_kernel_input_feature_dimension(dnums.kernel_input_feature_dimension);
  proto.set_kernel_output_feature_dimension(dnums.kernel_output_feature_dimension);
  Assign(dnums.kernel_spatial_dimensions, proto.mutable_kernel_spatial_dimensions());
  proto.set_output_batch_dimension(dnums.output_batch_dimension);
  proto.set_output_feature_dimension(dnums.output_feature_dimension);
  Assign(dnums.output_spatial_dimensions, proto.mutable_output_spatial_dimensions());
  return proto;
}

DotDimensionNumbers DotDimensionNumbersFromProto(const xla::DotDimensionNumbers& proto) {
  DotDimensionNumbers dnums;
  dnums.lhs_contracting_dimensions = ToVector<int64_t>(proto.lhs_contracting_dimensions());
  dnums.rhs_contracting_dimensions = ToVector<int64_t>(proto.rhs_contracting_dimensions());
  dnums.lhs_batch_dimensions = ToVector<int64_t>(proto.lhs_batch_dimensions());
  dnums.rhs_batch_dimensions = ToVector<int64_t>(proto.rhs_batch_dimensions());
  return dnums;
}

xla::DotDimensionNumbers DotDimensionNumbersToProto(const DotDimensionNumbers& dnums) {
  xla::DotDimensionNumbers proto;
  Assign(dnums.lhs_contracting_dimensions, proto.mutable_lhs_contracting_dimensions());
  Assign(dnums.rhs_contracting_dimensions, proto.mutable_rhs_contracting_dimensions());
  Assign(dnums.lhs_batch_dimensions, proto.mutable_lhs_batch_dimensions());
  Assign(dnums.rhs_batch_dimensions, proto.mutable_rhs_batch_dimensions());
  return proto;
}

RaggedDotDimensionNumbers RaggedDotDimensionNumbersFromProto(
    const xla::RaggedDotDimensionNumbers& proto) {
  RaggedDotDimensionNumbers dnums;
  dnums.dot_dimension_numbers = DotDimensionNumbersFromProto(proto.dot_dimension_numbers());
  dnums.lhs_ragged_dimensions = ToVector<int64_t>(proto.lhs_ragged_dimensions());
  dnums.rhs_group_dimensions = ToVector<int64_t>(proto.rhs_group_dimensions());
  return dnums;
}

xla::RaggedDotDimensionNumbers RaggedDotDimensionNumbersToProto(
    const RaggedDotDimensionNumbers& dnums) {
  xla::RaggedDotDimensionNumbers proto;
  *proto.mutable_dot_dimension_numbers() = DotDimensionNumbersToProto(dnums.dot_dimension_numbers);
  Assign(dnums.lhs_ragged_dimensions, proto.mutable_lhs_ragged_dimensions());
  Assign(dnums.rhs_group_dimensions, proto.mutable_rhs_group_dimensions());
  return proto;
}

GatherDimensionNumbers GatherDimensionNumbersFromProto(const xla::GatherDimensionNumbers& proto) {
  GatherDimensionNumbers dnums;
  dnums.offset_dims = ToVector<int64_t>(proto.offset_dims());
  dnums.collapsed_slice_dims = ToVector<int64_t>(proto.collapsed_slice_dims());
  dnums.start_index_map = ToVector<int64_t>(proto.start_index_map());
  dnums.index_vector_dim = proto.index_vector_dim();
  dnums.operand_batching_dims = ToVector<int64_t>(proto.operand_batching_dims());
  dnums.start_indices_batching_dims = ToVector<int64_t>(proto.start_indices_batching_dims());
  return dnums;
}

xla::GatherDimensionNumbers GatherDimensionNumbersToProto(const GatherDimensionNumbers& dnums) {
  xla::GatherDimensionNumbers proto;
  Assign(dnums.offset_dims, proto.mutable_offset_dims());
  Assign(dnums.collapsed_slice_dims, proto.mutable_collapsed_slice_dims());
  Assign(dnums.start_index_map, proto.mutable_start_index_map());
  proto.set_index_vector_dim(dnums.index_vector_dim);
  Assign(dnums.operand_batching_dims, proto.mutable_operand_batching_dims());
  Assign(dnums.start_indices_batching_dims, proto.mutable_start_indices_batching_dims());
  return proto;
}

ScatterDimensionNumbers ScatterDimensionNumbersFromProto(
    const xla::ScatterDimensionNumbers& proto) {
  ScatterDimensionNumbers dnums;
  dnums.update_window_dims = ToVector<int64_t>(proto.update_window_dims());
  dnums.inserted_window_dims = ToVector<int64_t>(proto.inserted_window_dims());
  dnums.scatter_dims_to_operand_dims = ToVector<int64_t>(proto.scatter_dims_to_operand_dims());
  dnums.index_vector_dim = proto.index_vector_dim();
  dnums.input_batching_dims = ToVector<int64_t>(proto.input_batching_dims());
  dnums.scatter_indices_batching_dims = ToVector<int64_t>(proto.scatter_indices_batching_dims());
  return dnums;
}

xla::ScatterDimensionNumbers ScatterDimensionNumbersToProto(const ScatterDimensionNumbers& dnums) {
  xla::ScatterDimensionNumbers proto;
  Assign(dnums.update_window_dims, proto.mutable_update_window_dims());
  Assign(dnums.inserted_window_dims, proto.mutable_inserted_window_dims());
  Assign(dnums.scatter_dims_to_operand_dims, proto.mutable_scatter_dims_to_operand_dims());
  proto.set_index_vector_dim(dnums.index_vector_dim);
  Assign(dnums.input_batching_dims, proto.mutable_input_batching_dims());
  Assign(dnums.scatter_indices_batching_dims, proto.mutable_scatter_indices_batching_dims());
  return proto;
}

PaddingConfig PaddingConfigFromProto(const xla::PaddingConfig& proto) {
  PaddingConfig config;
  for (const auto& d : proto.dimensions()) {
    config.dimensions.push_back({d.edge_padding_low(), d.edge_padding_high(), d.interior_padding()});
  }
  return config;
}

xla::PaddingConfig PaddingConfigToProto(const PaddingConfig& config) {
  xla::PaddingConfig proto;
  for (const PaddingDimension& d : config.dimensions) {
    auto* p = proto.add_dimensions();
    p->set_edge_padding_low(d.edge_padding_low);
    p->set_edge_padding_high(d.edge_padding_high);
    p->set_interior_padding(d.interior_padding);
  }
  return proto;
}

absl::StatusOr<PrecisionConfig> PrecisionConfigFromProto(const xla::PrecisionConfig& proto) {
  PrecisionConfig config;
  for (int precision : proto.operand_precision()) {
    if (!xla::PrecisionConfig::Precision_IsValid(precision)) {
      return Invalid(absl::StrCat("unknown operand precision ", precision));
    }
    config.operand_precision.push_back(static_cast<Precision>(precision));
  }
  if (!xla::PrecisionConfig::Algorithm_IsValid(proto.algorithm())) {
    return Invalid(absl::StrCat("unknown precision algorithm ", proto.algorithm()));
  }
  config.algorithm = proto.algorithm();
  return config;
}

xla::PrecisionConfig PrecisionConfigToProto(const PrecisionConfig& config) {
  xla::PrecisionConfig proto;
  for (Precision precision : config.operand_precision) {
    proto.add_operand_precision(static_cast<xla::PrecisionConfig::Precision>(precision));
  }
  proto.set_algorithm(static_cast<xla::PrecisionConfig::Algorithm>(config.algorithm));
  return proto;
}

absl::StatusOr<TriangularSolveOptions> TriangularSolveOptionsFromProto(
    const xla::TriangularSolveOptions& proto) {
  if (!xla::TriangularSolveOptions::Transpose_IsValid(proto.transpose_a())) {
    return Invalid(absl::StrCat("unknown triangular-solve transpose_a ", proto.transpose_a()));
  }
  TriangularSolveOptions options;
  options.left_side = proto.left_side();
  options.lower = proto.lower();
  options.unit_diagonal = proto.unit_diagonal();
  options.transpose_a = static_cast<TriangularSolveOptions::Transpose>(proto.transpose_a());
  return options;
}

xla::TriangularSolveOptions TriangularSolveOptionsToProto(const TriangularSolveOptions& options) {
  xla::TriangularSolveOptions proto;
  proto.set_left_side(options.left_side);
  proto.set_lower(options.lower);
  proto.set_unit_diagonal(options.unit_diagonal);
  proto.set_transpose_a(static_cast<xla::TriangularSolveOptions::Transpose>(options.transpose_a));
  return proto;
}

std::vector<ReplicaGroup> ReplicaGroupsFromProto(
    const google::protobuf::RepeatedPtrField<xla::ReplicaGroup>& proto) {
  std::vector<ReplicaGroup> groups;
  groups.reserve(proto.size());
  for (const xla::ReplicaGroup& group : proto) {
    groups.push_back({ToVector<int64_t>(group.replica_ids())});
  }
  return groups;
}

IotaReplicaGroupList IotaReplicaGroupListFromProto(const xla::IotaReplicaGroupListProto& proto) {
  IotaReplicaGroupList list;
  list.num_replica_groups = proto.num_replica_groups();
  list.num_devices_per_group = proto.num_devices_per_group();
  list.iota_reshape_dims = ToVector<int64_t>(proto.iota_reshape_dims());
  list.iota_transpose_perm = ToVector<int64_t>(proto.iota_transpose_perm());
  return list;
}

xla::IotaReplicaGroupListProto IotaReplicaGroupListToProto(const IotaReplicaGroupList& list) {
  xla::IotaReplicaGroupListProto proto;
  proto.set_num_replica_groups(list.num_replica_groups);
  proto.set_num_devices_per_group(list.num_devices_per_group);
  Assign(list.iota_reshape_dims, proto.mutable_iota_reshape_dims());
  for (int64_t dimension : list.iota_transpose_perm) {
    proto.add_iota_transpose_perm(static_cast<int32_t>(dimension));
  }
  return proto;
}

OutputOperandAliasing OutputOperandAliasingFromProto(const xla::OutputOperandAliasing& proto) {
  OutputOperandAliasing aliasing;
  aliasing.output_shape_index = ToVector<int64_t>(proto.output_shape_index());
  aliasing.operand_index = proto.operand_index();
  aliasing.operand_shape_index = ToVector<int64_t>(proto.operand_shape_index());
  return aliasing;
}

xla::OutputOperandAliasing OutputOperandAliasingToProto(const OutputOperandAliasing& aliasing) {
  xla::OutputOperandAliasing proto;
  Assign(aliasing.output_shape_index, proto.mutable_output_shape_index());
  proto.set_operand_index(aliasing.operand_index);
  Assign(aliasing.operand_shape_index, proto.mutable_operand_shape_index());
  return proto;
}

FrontendAttributes FrontendAttributesFromProto(const xla::FrontendAttributes& proto) {
  return FrontendAttributes(proto.map().begin(), proto.map().end());
}

xla::FrontendAttributes FrontendAttributesToProto(const FrontendAttributes& attributes) {
  xla::FrontendAttributes proto;
  for (const auto& [key, value] : attributes) (*proto.mutable_map())[key] = value;
  return proto;
}

StatisticsViz StatisticsVizFromProto(const xla::StatisticsViz& proto) {
  StatisticsViz statistics;
  statistics.stat_index_to_visualize = proto.stat_index_to_visualize();
  for (const xla::Statistic& statistic : proto.statistics()) {
    statistics.statistics.emplace_back(statistic.stat_name(), statistic.stat_val());
  }
  return statistics;
}

xla::StatisticsViz StatisticsVizToProto(const StatisticsViz& statistics) {
  xla::StatisticsViz proto;
  proto.set_stat_index_to_visualize(statistics.stat_index_to_visualize);
  for (const auto& [name, value] : statistics.statistics) {
    xla::Statistic* statistic = proto.add_statistics();
    statistic->set_stat_name(name);
    statistic->set_stat_val(value);
  }
  return proto;
}

}  // namespace tessera
