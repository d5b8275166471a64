// Each opcode's attributes: which names it accepts, which are required,
// where their values go in HloAttributes, and the defaults XLA's parser
// fills in afterwards.
#include <numeric>

#include "absl/strings/str_cat.h"
#include "hlo/ir/status_macros.h"
#include "hlo/parser/hlo_parser_internal.h"

namespace tessera {
namespace parser_internal {
namespace {

std::string NormalizeThread(std::string thread) {
  return thread == "main" ? std::string() : thread;
}

int64_t LeafCount(const Shape& shape) {
  int64_t leaves = 0;
  ForEachSubshape(shape, [&](const Shape& subshape, const ShapeIndex&) {
    if (!subshape.IsTuple()) ++leaves;
  });
  return leaves;
}

// The comparison type XLA assumes for an element type (printed only when
// the instruction's differs).
ComparisonType DefaultComparisonType(PrimitiveType type) {
  if (IsFloatingPointType(type) || IsComplexType(type)) return ComparisonType::kFloat;
  if (IsUnsignedIntegralType(type) || type == PRED) return ComparisonType::kUnsigned;
  return ComparisonType::kSigned;
}

}  // namespace

void HloParserImpl::AddCommonAttributes(Scope& scope, PendingInstruction& p, AttrTable& table) {
  HloAttributes& a = p.attrs;
  table.Add("sharding", false, [this, &a] {
    HloSharding sharding;
    TS_RETURN_IF_ERROR(ParseSharding(&sharding));
    a.sharding = std::move(sharding);
    return absl::OkStatus();
  });
  table.Add("frontend_attributes", false,
            [this, &a] { return ParseFrontendAttributes(&a.frontend_attributes); });
  table.Add("statistics", false, [this, &a] {
    StatisticsViz statistics;
    TS_RETURN_IF_ERROR(ParseStatistics(&statistics));
    a.statistics_viz = std::move(statistics);
    return absl::OkStatus();
  });
  table.Add("metadata", false, [this, &a] { return ParseMetadata(&a.metadata); });
  table.Add("backend_config", false,
            [this, &a] { return ParseStringOrJsonDict(&a.backend_config); });
  table.Add("control-predecessors", false, [this, &scope, &p] {
    return ParseInstructionNameList(scope, &p.control_predecessors);
  });
  for (const char* unsupported : {"origin", "result_accuracy"}) {
    table.Add(unsupported, false, [this, unsupported] {
      return ErrorAt(Offset(), absl::StrCat("attribute '", unsupported,
                                            "' is not supported (the IR does not represent it)"));
    });
  }
}

absl::Status HloParserImpl::CheckOperandCount(const PendingInstruction& p) const {
  const std::optional<int> arity = HloOpcodeArity(p.opcode);
  const int64_t count = static_cast<int64_t>(p.operands.size());
  if (p.opcode == HloOpcode::kConstant || p.opcode == HloOpcode::kParameter) {
    return absl::OkStatus();
  }
  auto fail = [&](absl::string_view expected) {
    return ErrorAt(p.opcode_offset, absl::StrCat("expected ", expected, " for ",
                                                 HloOpcodeString(p.opcode), ", got ", count));
  };
  if (arity.has_value() && count != *arity) {
    return fail(absl::StrCat(*arity, " operand", *arity == 1 ? "" : "s"));
  }
  switch (p.opcode) {
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
      if (count == 0 || count % 2 != 0) return fail("an even, non-zero number of operands");
      break;
    case HloOpcode::kScatter:
      if (count % 2 == 0) return fail("an odd number of operands");
      break;
    case HloOpcode::kConditional:
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kDynamicReshape:
      if (count < 1) return fail("at least one operand");
      break;
    case HloOpcode::kDynamicUpdateSlice:
      if (count < 2) return fail("at least two operands");
      break;
    default:
      break;
  }
  return absl::OkStatus();
}

absl::Status HloParserImpl::AddOpcodeAttributes(Scope& scope, PendingInstruction& p,
                                                AttrTable& table) {
  HloAttributes& a = p.attrs;
  // Small builders for the common kinds of attribute.
  auto add_dimensions = [&](bool required) {
    table.Add("dimensions", required, [this, &a] { return ParseBracedInt64List(&a.dimensions); });
  };
  auto add_one_dimension = [&](bool required) {
    table.Add("dimensions", required, [this, &a] {
      int64_t dimension = 0;
      TS_RETURN_IF_ERROR(ParseSingleBracedInt64(&dimension, "dimension"));
      a.dimensions = {dimension};
      return absl::OkStatus();
    });
  };
  auto add_int = [&](const char* name, bool required, int64_t* out) {
    table.Add(name, required, [this, out] { return ParseInt64(out); });
  };
  auto add_int32 = [&](const char* name, bool required, int32_t* out) {
    table.Add(name, required, [this, out] {
      const size_t offset = Offset();
      int64_t value = 0;
      TS_RETURN_IF_ERROR(ParseInt64(&value));
      if (value != static_cast<int32_t>(value)) return ErrorAt(offset, "value out of range for int32");
      *out = static_cast<int32_t>(value);
      return absl::OkStatus();
    });
  };
  auto add_bool = [&](const char* name, bool* out) {
    table.Add(name, false, [this, out] { return ParseBool(out); });
  };
  auto add_list = [&](const char* name, bool required, std::vector<int64_t>* out) {
    table.Add(name, required, [this, out] { return ParseBracedInt64List(out); });
  };
  auto add_computation = [&](const char* name, bool required) {
    table.Add(name, required, [this, &p, name] {
      TS_ASSIGN_OR_RETURN(HloComputation * computation, ParseComputationReference());
      p.computations[name] = {computation};
      return absl::OkStatus();
    });
  };
  auto add_computation_list = [&](const char* name, bool required) {
    table.Add(name, required, [this, &p, name] {
      return ParseComputationList(&p.computations[name]);
    });
  };
  auto add_enum = [&](const char* name, bool required, absl::Span<const EnumSpelling> spellings,
                      bool ignore_case, auto* out) {
    table.Add(name, required, [this, spellings, ignore_case, name, out] {
      int32_t value = 0;
      TS_RETURN_IF_ERROR(ParseEnum(spellings, ignore_case, name, &value));
      *out = static_cast<std::remove_reference_t<decltype(*out)>>(value);
      return absl::OkStatus();
    });
  };
  auto add_window = [&](bool always) {
    if (always) a.window.emplace();
    table.Add("window", false, [this, &a] {
      Window window;
      TS_RETURN_IF_ERROR(ParseWindow(&window, /*expect_braces=*/true));
      a.window = std::move(window);
      return absl::OkStatus();
    });
  };
  auto add_dim_labels = [&](bool required) {
    table.Add("dim_labels", required, [this, &a] {
      ConvolutionDimensionNumbers dnums;
      TS_RETURN_IF_ERROR(ParseConvolutionDimensionNumbers(&dnums));
      a.convolution_dimension_numbers = std::move(dnums);
      return absl::OkStatus();
    });
  };
  auto add_precision = [&](bool with_algorithm) {
    table.Add("operand_precision", false, [this, &a] {
      return ParsePrecisionList(&a.precision_config.operand_precision);
    });
    if (with_algorithm) {
      add_enum("algorithm", false, AlgorithmSpellings(), true, &a.precision_config.algorithm);
    }
  };
  auto add_dot_dimensions = [&](DotDimensionNumbers* d) {
    add_list("lhs_contracting_dims", false, &d->lhs_contracting_dimensions);
    add_list("rhs_contracting_dims", false, &d->rhs_contracting_dimensions);
    add_list("lhs_batch_dims", false, &d->lhs_batch_dimensions);
    add_list("rhs_batch_dims", false, &d->rhs_batch_dimensions);
  };
  auto add_collective = [&] {
    table.Add("replica_groups", false, [this, &a] { return ParseReplicaGroups(&a); });
    add_int("channel_id", false, &a.channel_id);
  };
  auto add_aliasing = [&] {
    table.Add("output_to_operand_aliasing", false,
              [this, &a] { return ParseOutputOperandAliasing(&a.output_operand_aliasing); });
  };
  auto unsupported = [&](const char* name, const char* why) {
    table.Add(name, false, [this, name, why] {
      return ErrorAt(Offset(), absl::StrCat("attribute '", name, "' is not supported (", why, ")"));
    });
  };

  switch (p.opcode) {
    case HloOpcode::kParameter:
      table.Add("parameter_replication", false,
                [this, &a] { return ParseBoolList(&a.parameter_replication); });
      break;
    case HloOpcode::kIota:
      table.Add("iota_dimension", true, [this, &a] {
        int64_t dimension = 0;
        TS_RETURN_IF_ERROR(ParseInt64(&dimension));
        a.dimensions = {dimension};
        return absl::OkStatus();
      });
      break;
    case HloOpcode::kTopK:
      a.largest = true;  // XLA's default when `largest` is absent
      add_int("k", true, &a.k);
      add_bool("largest", &a.largest);
      add_bool("is_stable", &a.is_stable);
      break;
    case HloOpcode::kReducePrecision:
      add_int32("exponent_bits", true, &a.exponent_bits);
      add_int32("mantissa_bits", true, &a.mantissa_bits);
      break;
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
      add_collective();
      add_one_dimension(true);
      add_bool("constrain_layout", &a.constrain_layout);
      add_bool("use_global_device_ids", &a.use_global_device_ids);
      break;
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kCollectiveReduce:
      add_collective();
      add_computation("to_apply", true);
      add_bool("constrain_layout", &a.constrain_layout);
      add_bool("use_global_device_ids", &a.use_global_device_ids);
      unsupported("mode", "XLA ignores it too");
      if (p.opcode == HloOpcode::kReduceScatter) add_one_dimension(true);
      break;
    case HloOpcode::kAllToAll:
      add_collective();
      add_one_dimension(false);
      add_bool("constrain_layout", &a.constrain_layout);
      break;
    case HloOpcode::kRaggedAllToAll:
      add_collective();
      add_one_dimension(false);
      break;
    case HloOpcode::kCollectiveBroadcast:
      add_collective();
      break;
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart:
      add_int("channel_id", false, &a.channel_id);
      table.Add("source_target_pairs", true, [this, &a] {
        const size_t offset = Offset();
        std::vector<std::vector<int64_t>> pairs;
        TS_RETURN_IF_ERROR(ParseBracedInt64ListList(&pairs));
        for (const std::vector<int64_t>& pair : pairs) {
          if (pair.size() != 2) return ErrorAt(offset, "expected {source,target} pairs");
          a.source_target_pairs.emplace_back(pair[0], pair[1]);
        }
        return absl::OkStatus();
      });
      // In-place permutes list one slice size per transfer; the proto keeps
      // them flattened in dynamic_slice_sizes.
      table.Add("slice_sizes", false, [this, &a] {
        std::vector<std::vector<int64_t>> sizes;
        TS_RETURN_IF_ERROR(ParseBracedInt64ListList(&sizes));
        for (const std::vector<int64_t>& size : sizes) {
          a.dynamic_slice_sizes.insert(a.dynamic_slice_sizes.end(), size.begin(), size.end());
        }
        return absl::OkStatus();
      });
      break;
    case HloOpcode::kAsyncStart:
      add_computation("calls", true);
      add_aliasing();
      [[fallthrough]];
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
      table.Add("async_execution_thread", false, [this, &a] {
        std::string thread;
        TS_RETURN_IF_ERROR(ParseString(&thread));
        a.async_execution_thread = NormalizeThread(std::move(thread));
        return absl::OkStatus();
      });
      if (p.opcode != HloOpcode::kAsyncStart) add_computation("calls", false);
      break;
    case HloOpcode::kCopyStart:
      table.Add("cross_program_prefetch_index", false, [this, &a] {
        const size_t offset = Offset();
        int64_t index = 0;
        TS_RETURN_IF_ERROR(ParseInt64(&index));
        if (index != static_cast<int32_t>(index)) return ErrorAt(offset, "value out of range for int32");
        a.cross_program_prefetch_index = static_cast<int32_t>(index);
        return absl::OkStatus();
      });
      break;
    case HloOpcode::kReshape:
      table.Add("inferred_dimension", false, [this, &a] {
        int64_t dimension = 0;
        TS_RETURN_IF_ERROR(ParseInt64(&dimension));
        if (dimension != -1) a.dimensions = {dimension};
        return absl::OkStatus();
      });
      break;
    case HloOpcode::kSort:
      add_one_dimension(true);
      add_bool("is_stable", &a.is_stable);
      add_computation("to_apply", true);
      break;
    case HloOpcode::kWhile:
      add_computation("condition", true);
      add_computation("body", true);
      break;
    case HloOpcode::kRecv:
    case HloOpcode::kRecvDone:
    case HloOpcode::kSend:
    case HloOpcode::kSendDone:
      add_int("channel_id", false, &a.channel_id);
      add_bool("is_host_transfer", &a.is_host_transfer);
      break;
    case HloOpcode::kGetTupleElement:
      add_int("index", true, &a.tuple_index);
      break;
    case HloOpcode::kCall:
      add_computation("to_apply", true);
      add_bool("is_composite", &a.is_composite);
      break;
    case HloOpcode::kReduceWindow:
      add_window(/*always=*/true);
      add_computation("to_apply", true);
      break;
    case HloOpcode::kConvolution:
      add_window(/*always=*/true);
      add_dim_labels(true);
      add_int("feature_group_count", false, &a.feature_group_count);
      add_int("batch_group_count", false, &a.batch_group_count);
      add_precision(/*with_algorithm=*/false);
      unsupported("conv_kind", "the IR does not represent it");
      break;
    case HloOpcode::kFft:
      add_enum("fft_type", true, FftTypeSpellings(), false, &a.fft_type);
      add_list("fft_length", true, &a.fft_length);
      break;
    case HloOpcode::kTriangularSolve: {
      a.triangular_solve_options.emplace();
      TriangularSolveOptions& options = *a.triangular_solve_options;
      add_bool("left_side", &options.left_side);
      add_bool("lower", &options.lower);
      add_bool("unit_diagonal", &options.unit_diagonal);
      add_enum("transpose_a", false, TransposeSpellings(), false, &options.transpose_a);
      break;
    }
    case HloOpcode::kCompare:
      add_enum("direction", true, ComparisonDirectionSpellings(), false, &a.comparison_direction);
      add_enum("type", false, ComparisonTypeSpellings(), false, &a.comparison_type);
      break;
    case HloOpcode::kCholesky:
      a.cholesky_options.emplace();
      add_bool("lower", &a.cholesky_options->lower);
      break;
    case HloOpcode::kBroadcast:
      // Optional only when broadcasting a scalar.
      add_dimensions(/*required=*/!p.operands[0]->shape().IsScalar());
      break;
    case HloOpcode::kConcatenate:
      add_one_dimension(true);
      break;
    case HloOpcode::kMap:
      add_computation("to_apply", true);
      add_dimensions(false);
      break;
    case HloOpcode::kScan:
      return ErrorAt(p.opcode_offset,
                     "scan is not supported (the IR has no num_carries/is_reverse attributes)");
    case HloOpcode::kReduce:
      add_computation("to_apply", true);
      add_dimensions(true);
      break;
    case HloOpcode::kReverse:
    case HloOpcode::kTranspose:
      add_dimensions(true);
      break;
    case HloOpcode::kSelectAndScatter:
      add_computation("select", true);
      add_computation("scatter", true);
      add_window(/*always=*/true);
      break;
    case HloOpcode::kSlice:
      table.Add("slice", true, [this, &a] { return ParseSliceRanges(&a.slice_dimensions); });
      break;
    case HloOpcode::kDynamicSlice:
      add_list("dynamic_slice_sizes", true, &a.dynamic_slice_sizes);
      break;
    case HloOpcode::kBatchNormTraining:
    case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormGrad:
      table.Add("epsilon", true, [this, &a] {
        const size_t offset = Offset();
        double value = 0;
        TS_RETURN_IF_ERROR(ParseDouble(&value));
        if (std::abs(value) > std::numeric_limits<float>::max()) {
          return ErrorAt(offset, "value out of range for float");
        }
        a.epsilon = static_cast<float>(value);
        return absl::OkStatus();
      });
      add_int("feature_index", true, &a.feature_index);
      break;
    case HloOpcode::kPad:
      table.Add("padding", true, [this, &a] {
        PaddingConfig padding;
        TS_RETURN_IF_ERROR(ParsePaddingConfig(&padding));
        a.padding_config = std::move(padding);
        return absl::OkStatus();
      });
      break;
    case HloOpcode::kFusion:
      add_computation("calls", true);
      add_enum("kind", true, FusionKindSpellings(), false, &a.fusion_kind);
      add_aliasing();
      break;
    case HloOpcode::kInfeed:
      table.Add("infeed_config", false, [this, &a] { return ParseString(&a.infeed_config); });
      break;
    case HloOpcode::kOutfeed:
      table.Add("outfeed_config", false, [this, &a] { return ParseString(&a.outfeed_config); });
      table.Add("outfeed_shape", false, [this, &a] {
        Shape shape;
        TS_RETURN_IF_ERROR(ParseShape(&shape));
        a.outfeed_shape = std::move(shape);
        return absl::OkStatus();
      });
      break;
    case HloOpcode::kRng:
      add_enum("distribution", true, RandomDistributionSpellings(), true, &a.distribution);
      break;
    case HloOpcode::kRngGetAndUpdateState:
      add_int("delta", true, &a.delta);
      break;
    case HloOpcode::kRngBitGenerator:
      add_enum("algorithm", true, RandomAlgorithmSpellings(), true, &a.rng_algorithm);
      break;
    case HloOpcode::kConditional: {
      const Shape& index = p.operands[0]->shape();
      if (!index.IsScalar() || (index.element_type() != PRED && index.element_type() != S32)) {
        return ErrorAt(p.opcode_offset,
                       absl::StrCat("expected a pred or s32 scalar as the first operand of "
                                    "conditional, got ", ShapeToText(index, false)));
      }
      if (index.element_type() == PRED) {
        add_computation("true_computation", true);
        add_computation("false_computation", true);
      } else {
        add_computation_list("branch_computations", true);
      }
      break;
    }
    case HloOpcode::kCustomCall:
      table.Add("custom_call_target", true,
                [this, &a] { return ParseString(&a.custom_call_target); });
      add_window(/*always=*/false);
      add_dim_labels(false);
      add_int("feature_group_count", false, &a.feature_group_count);
      add_int("batch_group_count", false, &a.batch_group_count);
      table.Add("operand_layout_constraints", false, [this, &a] {
        a.constrain_layout = true;
        return ParseShapeList(&a.operand_shapes_with_layout);
      });
      add_bool("custom_call_has_side_effect", &a.custom_call_has_side_effect);
      add_computation("to_apply", false);
      add_computation_list("called_computations", false);
      add_aliasing();
      add_enum("padding_type", false, PaddingTypeSpellings(), false, &a.padding_type);
      table.Add("literal", false, [this, &a] {
        Literal literal;
        TS_RETURN_IF_ERROR(ParseLiteralWithShape(&literal));
        a.literal = std::move(literal);
        return absl::OkStatus();
      });
      add_precision(/*with_algorithm=*/false);
      add_enum("schedule", false, CustomCallScheduleSpellings(), true, &a.custom_call_schedule);
      table.Add("api_version", false, [this, &a] {
        const size_t offset = Offset();
        int32_t value = 0;
        TS_RETURN_IF_ERROR(ParseEnum(ApiVersionSpellings(), /*ignore_case=*/true, "api_version",
                                     &value));
        if (value == static_cast<int32_t>(CustomCallApiVersion::kUnspecified)) {
          return ErrorAt(offset, "api_version=API_VERSION_UNSPECIFIED is invalid");
        }
        a.custom_call_api_version = static_cast<CustomCallApiVersion>(value);
        return absl::OkStatus();
      });
      break;
    case HloOpcode::kDot:
    case HloOpcode::kScaledDot:
      a.dot_dimension_numbers.emplace();
      add_dot_dimensions(&*a.dot_dimension_numbers);
      add_precision(/*with_algorithm=*/true);
      unsupported("sparsity", "sparse dots are not represented");
      break;
    case HloOpcode::kRaggedDot:
      a.ragged_dot_dimension_numbers.emplace();
      add_dot_dimensions(&a.ragged_dot_dimension_numbers->dot_dimension_numbers);
      add_list("lhs_ragged_dims", false, &a.ragged_dot_dimension_numbers->lhs_ragged_dimensions);
      add_list("rhs_group_dims", false, &a.ragged_dot_dimension_numbers->rhs_group_dimensions);
      add_precision(/*with_algorithm=*/false);
      break;
    case HloOpcode::kGather: {
      a.gather_dimension_numbers.emplace();
      GatherDimensionNumbers& d = *a.gather_dimension_numbers;
      add_list("offset_dims", true, &d.offset_dims);
      add_list("collapsed_slice_dims", true, &d.collapsed_slice_dims);
      add_list("start_index_map", true, &d.start_index_map);
      add_int("index_vector_dim", true, &d.index_vector_dim);
      add_list("slice_sizes", true, &a.gather_slice_sizes);
      add_bool("indices_are_sorted", &a.indices_are_sorted);
      add_list("operand_batching_dims", false, &d.operand_batching_dims);
      add_list("start_indices_batching_dims", false, &d.start_indices_batching_dims);
      break;
    }
    case HloOpcode::kScatter: {
      a.scatter_dimension_numbers.emplace();
      ScatterDimensionNumbers& d = *a.scatter_dimension_numbers;
      add_list("update_window_dims", true, &d.update_window_dims);
      add_list("inserted_window_dims", true, &d.inserted_window_dims);
      add_list("scatter_dims_to_operand_dims", true, &d.scatter_dims_to_operand_dims);
      add_int("index_vector_dim", true, &d.index_vector_dim);
      add_computation("to_apply", true);
      add_bool("indices_are_sorted", &a.indices_are_sorted);
      add_bool("unique_indices", &a.unique_indices);
      add_list("input_batching_dims", false, &d.input_batching_dims);
      add_list("scatter_indices_batching_dims", false, &d.scatter_indices_batching_dims);
      break;
    }
    case HloOpcode::kDomain:
      table.Add("domain", true, [this, &a] { return ParseDomain(&a); });
      break;
    case HloOpcode::kGetDimensionSize:
    case HloOpcode::kSetDimensionSize:
      add_one_dimension(true);
      break;
    default:
      break;  // no attributes of its own
  }
  (void)scope;
  return absl::OkStatus();
}

absl::Status HloParserImpl::FinishOpcodeAttributes(PendingInstruction& p) {
  HloAttributes& a = p.attrs;
  auto computations = [&](const char* name) -> const std::vector<HloComputation*>& {
    static const std::vector<HloComputation*> kNone;
    auto it = p.computations.find(name);
    return it == p.computations.end() ? kNone : it->second;
  };
  auto append = [&](const char* name) {
    for (HloComputation* c : computations(name)) p.called.push_back(c);
  };
  switch (p.opcode) {
    case HloOpcode::kWhile:
      append("condition");
      append("body");
      break;
    case HloOpcode::kSelectAndScatter:
      append("select");
      append("scatter");
      break;
    case HloOpcode::kConditional:
      append("true_computation");
      append("false_computation");
      append("branch_computations");
      if (p.called.empty()) {
        return ErrorAt(p.attributes_offset, "expected at least one branch computation");
      }
      if (p.called.size() + 1 != p.operands.size()) {
        return ErrorAt(p.opcode_offset,
                       absl::StrCat("expected ", p.called.size() + 1,
                                    " operands for conditional (the branch index and one per "
                                    "branch), got ", p.operands.size()));
      }
      break;
    case HloOpcode::kFusion:
    case HloOpcode::kAsyncStart:
      append("calls");
      break;
    case HloOpcode::kCustomCall:
      if (p.seen.contains("to_apply") && p.seen.contains("called_computations")) {
        return ErrorAt(p.attributes_offset,
                       "custom-call cannot have both to_apply and called_computations");
      }
      append("to_apply");
      append("called_computations");
      if (a.precision_config.operand_precision.empty()) {
        a.precision_config.operand_precision.assign(p.operands.size(), Precision::kDefault);
      }
      if (a.constrain_layout && a.operand_shapes_with_layout.size() != p.operands.size()) {
        return ErrorAt(p.attributes_offset,
                       absl::StrCat("expected ", p.operands.size(),
                                    " operand layout constraints, got ",
                                    a.operand_shapes_with_layout.size()));
      }
      break;
    case HloOpcode::kDot:
    case HloOpcode::kConvolution:
      if (a.precision_config.operand_precision.empty()) {
        a.precision_config.operand_precision.assign(p.operands.size(), Precision::kDefault);
      }
      break;
    case HloOpcode::kRaggedDot:
    case HloOpcode::kScaledDot:
      if (a.precision_config.operand_precision.empty()) {
        a.precision_config.operand_precision.assign(2, Precision::kDefault);
      }
      break;
    case HloOpcode::kCompare:
      // An explicit type equal to the element type's default is the default.
      if (a.comparison_type ==
          DefaultComparisonType(p.operands[0]->shape().element_type())) {
        a.comparison_type = ComparisonType::kDefault;
      }
      break;
    case HloOpcode::kMap:
      append("to_apply");
      if (!p.seen.contains("dimensions") && p.shape.has_value()) {
        // XLA's map always spans every dimension of its result.
        a.dimensions.resize(p.shape->IsArray() ? p.shape->rank() : 0);
        std::iota(a.dimensions.begin(), a.dimensions.end(), 0);
      }
      break;
    case HloOpcode::kOutfeed:
      if (!a.outfeed_shape.has_value()) a.outfeed_shape = p.operands[0]->shape();
      break;
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart:
      if (p.seen.contains("slice_sizes") && p.operands.size() != 4) {
        return ErrorAt(p.opcode_offset,
                       "expected 4 operands for an in-place collective permute with slice_sizes");
      }
      break;
    default:
      append("to_apply");
      break;
  }
  return absl::OkStatus();
}

// XLA can leave out the result shape of simple ops; this covers the
// elementwise ops, tuple and get-tuple-element.
absl::Status HloParserImpl::InferShape(PendingInstruction& p) const {
  auto fail = [&] {
    return ErrorAt(p.opcode_offset, absl::StrCat("cannot infer the result shape of ",
                                                 HloOpcodeString(p.opcode),
                                                 "; write it before the opcode"));
  };
  auto with_type = [](const Shape& shape, PrimitiveType type) {
    Shape result = shape;
    result.set_element_type(type);
    return result;
  };
  switch (p.opcode) {
    case HloOpcode::kTuple: {
      std::vector<Shape> elements;
      for (const HloInstruction* operand : p.operands) elements.push_back(operand->shape());
      p.shape = Shape::MakeTuple(std::move(elements));
      return absl::OkStatus();
    }
    case HloOpcode::kGetTupleElement: {
      const Shape& tuple = p.operands[0]->shape();
      if (!tuple.IsTuple() || p.attrs.tuple_index < 0 || p.attrs.tuple_index >= tuple.tuple_size()) {
        return fail();
      }
      p.shape = tuple.tuple_shapes(p.attrs.tuple_index);
      return absl::OkStatus();
    }
    case HloOpcode::kConvert:
    case HloOpcode::kBitcastConvert:
    case HloOpcode::kReducePrecision:
    case HloOpcode::kStochasticConvert:
      return fail();
    default:
      break;
  }
  if (HloOpcodeCategory(p.opcode) != OpCategory::kElementwise || p.operands.empty() ||
      p.opcode == HloOpcode::kMap) {
    return fail();
  }
  const Shape& first = p.operands[p.opcode == HloOpcode::kSelect || p.opcode == HloOpcode::kClamp
                                      ? 1
                                      : 0]->shape();
  if (!first.IsArray()) return fail();
  const PrimitiveType type = first.element_type();
  switch (p.opcode) {
    case HloOpcode::kCompare:
    case HloOpcode::kIsFinite:
      p.shape = with_type(first, PRED);
      break;
    case HloOpcode::kReal:
    case HloOpcode::kImag:
    case HloOpcode::kAbs:
      p.shape = IsComplexType(type) ? with_type(first, ComplexComponentType(type)) : first;
      break;
    case HloOpcode::kComplex:
      if (type != F32 && type != F64) return fail();
      p.shape = with_type(first, type == F32 ? C64 : C128);
      break;
    default:
      p.shape = first;
      break;
  }
  return absl::OkStatus();
}

// `<op>-start(operands), <op's attributes>` stands for an async-start whose
// called computation holds just parameters and the op; `<op>-update` and
// `<op>-done` continue such a chain.
absl::StatusOr<HloInstruction*> HloParserImpl::ParseSugaredAsync(Scope& scope,
                                                                 PendingInstruction& start,
                                                                 HloOpcode wrapped_opcode,
                                                                 bool allow_attributes) {
  const std::string context = absl::StrCat(HloOpcodeString(wrapped_opcode),
                                           start.opcode == HloOpcode::kAsyncStart ? "-start"
                                           : start.opcode == HloOpcode::kAsyncUpdate ? "-update"
                                                                                    : "-done");
  if (wrapped_opcode == HloOpcode::kConstant || wrapped_opcode == HloOpcode::kParameter ||
      wrapped_opcode == HloOpcode::kAsyncStart || wrapped_opcode == HloOpcode::kAsyncUpdate ||
      wrapped_opcode == HloOpcode::kAsyncDone) {
    return ErrorAt(start.opcode_offset, absl::StrCat("cannot wrap ",
                                                     HloOpcodeString(wrapped_opcode),
                                                     " in an async op"));
  }
  AttrTable table;
  AddCommonAttributes(scope, start, table);
  table.Add("async_execution_thread", false, [this, &start] {
    std::string thread;
    TS_RETURN_IF_ERROR(ParseString(&thread));
    start.attrs.async_execution_thread = NormalizeThread(std::move(thread));
    return absl::OkStatus();
  });

  if (start.opcode != HloOpcode::kAsyncStart) {
    // The operand is the previous op of the chain; the wrapped op comes
    // from the chain's start.
    const HloInstruction* previous = start.operands.size() == 1 ? start.operands[0] : nullptr;
    if (previous == nullptr || (previous->opcode() != HloOpcode::kAsyncStart &&
                                previous->opcode() != HloOpcode::kAsyncUpdate)) {
      return ErrorAt(start.opcode_offset,
                     absl::StrCat(context, " expects one async-start or async-update operand"));
    }
    const HloInstruction* chain_start = previous;
    for (int guard = 0; chain_start->opcode() == HloOpcode::kAsyncUpdate && guard < 100000;
         ++guard) {
      if (chain_start->operand_count() != 1) break;
      chain_start = chain_start->operand(0);
    }
    const HloComputation* body = chain_start->called_computations().empty()
                                     ? nullptr
                                     : chain_start->called_computations()[0];
    if (chain_start->opcode() != HloOpcode::kAsyncStart || body == nullptr ||
        body->root_instruction() == nullptr ||
        body->root_instruction()->opcode() != wrapped_opcode) {
      return ErrorAt(start.opcode_offset,
                     absl::StrCat(context, " does not continue an async ",
                                  HloOpcodeString(wrapped_opcode)));
    }
    TS_RETURN_IF_ERROR(ParseAttributeList(table, allow_attributes, &start.seen, context));
    if (!start.shape.has_value()) {
      return ErrorAt(start.opcode_offset, absl::StrCat(context, " needs an explicit result shape"));
    }
    start.attrs.async_execution_thread.clear();  // inherited from the start
    return AddToScope(scope, start);
  }

  if (!start.shape.has_value() || !start.shape->IsTuple() || start.shape->tuple_size() < 2 ||
      !start.shape->tuple_shapes(0).IsTuple()) {
    return ErrorAt(start.opcode_offset,
                   absl::StrCat(context, " needs a result shape ((operands...), result, ...)"));
  }
  // The wrapped op sees one parameter per operand.
  auto body = std::make_unique<HloComputation>("async_wrapped");
  PendingInstruction wrapped;
  wrapped.opcode = wrapped_opcode;
  wrapped.name = std::string(HloOpcodeString(wrapped_opcode));
  wrapped.opcode_offset = start.opcode_offset;
  wrapped.attributes_offset = start.attributes_offset;
  wrapped.shape = start.shape->tuple_shapes(1);
  for (size_t i = 0; i < start.operands.size(); ++i) {
    HloInstruction* parameter = body->AddInstruction(HloInstruction::CreateParameter(
        static_cast<int64_t>(i), start.operands[i]->shape(), absl::StrCat("param_", i)));
    wrapped.operands.push_back(parameter);
  }
  TS_RETURN_IF_ERROR(CheckOperandCount(wrapped));
  TS_RETURN_IF_ERROR(AddOpcodeAttributes(scope, wrapped, table));
  TS_RETURN_IF_ERROR(ParseAttributeList(table, allow_attributes, &start.seen, context));
  wrapped.seen = start.seen;
  TS_RETURN_IF_ERROR(FinishOpcodeAttributes(wrapped));
  // As in XLA, the op inherits the start's metadata, configs and statistics.
  wrapped.attrs.metadata = start.attrs.metadata;
  wrapped.attrs.backend_config = start.attrs.backend_config;
  wrapped.attrs.frontend_attributes = start.attrs.frontend_attributes;
  wrapped.attrs.statistics_viz = start.attrs.statistics_viz;
  std::unique_ptr<HloInstruction> op =
      HloInstruction::Create(wrapped.opcode, *wrapped.shape, wrapped.operands);
  op->mutable_attrs() = std::move(wrapped.attrs);
  for (HloComputation* callee : wrapped.called) op->AppendCalledComputation(callee);
  op->SetName(wrapped.name);
  body->set_root_instruction(body->AddInstruction(std::move(op)));
  body->SetExecutionThread(start.attrs.async_execution_thread);
  HloComputation* raw_body = body.get();
  computations_.push_back(std::move(body));
  generated_computations_.push_back(raw_body);
  start.called = {raw_body};
  return AddToScope(scope, start);
}

}  // namespace parser_internal
}  // namespace tessera
