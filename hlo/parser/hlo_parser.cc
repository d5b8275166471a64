// Modules, computations and instructions: the top of the recursive-descent
// parser (see hlo_parser_internal.h for how the work is split).
#include "hlo/parser/hlo_parser.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/ir/status_macros.h"
#include "hlo/parser/hlo_parser_internal.h"

namespace tessera {
namespace parser_internal {
namespace {

constexpr int kMaxNesting = 200;

// Pops a scope when the computation being parsed ends, also on errors.
class ScopeGuard {
 public:
  ScopeGuard(std::vector<Scope*>* scopes, Scope* scope) : scopes_(scopes) {
    scopes_->push_back(scope);
  }
  ~ScopeGuard() { scopes_->pop_back(); }

 private:
  std::vector<Scope*>* scopes_;
};

std::string Truncated(absl::string_view text) {
  if (text.size() <= 32) return std::string(text);
  return absl::StrCat(text.substr(0, 29), "...");
}

// XLA's name for the main thread; Tessera keeps it as "".
std::string NormalizeThread(std::string thread) {
  return thread == "main" ? std::string() : thread;
}

}  // namespace

std::string AttrTable::Names() const {
  std::vector<std::string> names;
  for (const Entry& entry : entries_) names.push_back(entry.name);
  std::sort(names.begin(), names.end());
  return absl::StrJoin(names, ", ");
}

std::string AttrTable::FirstMissing(const absl::flat_hash_set<std::string>& seen) const {
  std::string first;
  for (const Entry& entry : entries_) {
    if (entry.required && !seen.contains(entry.name) && (first.empty() || entry.name < first)) {
      first = entry.name;
    }
  }
  return first;
}

HloParserImpl::HloParserImpl(absl::string_view text) : lexer_(text) {}

// ---------------------------------------------------------------------------
// Tokens and errors.

absl::Status HloParserImpl::ErrorAt(size_t offset, absl::string_view message) const {
  const auto [line, column] = lexer_.LineAndColumn(offset);
  return absl::InvalidArgumentError(absl::StrCat("line ", line, ", column ", column, ": ", message));
}

std::string HloParserImpl::DescribeCurrentToken() const {
  const Token& token = lexer_.token();
  switch (token.kind) {
    case TokKind::kError:
      return absl::StrCat("invalid input (", token.text, ")");
    case TokKind::kName:
      return absl::StrCat("name '", Truncated(token.text), "'");
    case TokKind::kIdent:
      return absl::StrCat("identifier '", Truncated(token.text), "'");
    case TokKind::kAttributeName:
      return absl::StrCat("attribute '", Truncated(token.text), "='");
    case TokKind::kPrimitiveType:
      return absl::StrCat("element type '", token.text, "'");
    case TokKind::kString:
      return absl::StrCat("string \"", Truncated(EscapeString(token.text)), "\"");
    case TokKind::kInt:
    case TokKind::kDecimal:
    case TokKind::kDimLabels:
    case TokKind::kDxD:
    case TokKind::kPad:
      return absl::StrCat(TokKindDescription(token.kind), " '",
                          Truncated(lexer_.TokenSource()), "'");
    default:
      return std::string(TokKindDescription(token.kind));
  }
}

absl::Status HloParserImpl::Expected(absl::string_view expected) const {
  return ErrorAt(Offset(), absl::StrCat("expected ", expected, ", got ", DescribeCurrentToken()));
}

absl::Status HloParserImpl::Expect(TokKind kind, absl::string_view what) {
  if (Kind() != kind) return Expected(what);
  lexer_.Lex();
  return absl::OkStatus();
}

bool HloParserImpl::EatIfPresent(TokKind kind) {
  if (Kind() != kind) return false;
  lexer_.Lex();
  return true;
}

absl::Status HloParserImpl::EnterNesting() {
  if (++depth_ > kMaxNesting) {
    --depth_;
    return ErrorAt(Offset(), "input nested too deeply");
  }
  return absl::OkStatus();
}

absl::Status HloParserImpl::ParseName(std::string* value) {
  if (Kind() != TokKind::kName && Kind() != TokKind::kIdent) return Expected("a name");
  *value = lexer_.token().text;
  lexer_.Lex();
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Entry points.

absl::StatusOr<Shape> HloParserImpl::ParseShapeOnly() {
  lexer_.Lex();
  Shape shape;
  TS_RETURN_IF_ERROR(ParseShape(&shape));
  if (Kind() != TokKind::kEof) return Expected("end of input after the shape");
  return shape;
}

absl::StatusOr<Literal> HloParserImpl::ParseLiteralOnly(const Shape& shape) {
  lexer_.Lex();
  Shape with_layout = shape;
  SetDefaultLayouts(&with_layout);
  Literal literal;
  TS_RETURN_IF_ERROR(ParseLiteral(with_layout, &literal));
  if (Kind() != TokKind::kEof) return Expected("end of input after the literal");
  return literal;
}

absl::StatusOr<HloSharding> HloParserImpl::ParseShardingOnly() {
  lexer_.Lex();
  HloSharding sharding;
  TS_RETURN_IF_ERROR(ParseSharding(&sharding));
  if (Kind() != TokKind::kEof) return Expected("end of input after the sharding");
  return sharding;
}

absl::StatusOr<std::unique_ptr<HloModule>> HloParserImpl::ParseModule() {
  lexer_.Lex();
  auto module = std::make_unique<HloModule>("module");
  bool has_header = false;
  bool is_scheduled = false;
  if (Kind() == TokKind::kwHloModule) {
    has_header = true;
    TS_RETURN_IF_ERROR(ParseHeader(module.get(), &is_scheduled));
  }
  if (Kind() == TokKind::kwFileNames) TS_RETURN_IF_ERROR(ParseStackFrameIndex());
  if (Kind() == TokKind::kEof) return Expected("a computation");
  while (Kind() != TokKind::kEof) TS_RETURN_IF_ERROR(ParseComputation());

  // Computations the parser named itself (inline `to_apply={...}` bodies,
  // the bodies of sugared async ops) get names no written one uses.
  HloComputation* entry = entry_ != nullptr ? entry_ : computations_.back().get();
  for (HloComputation* computation : generated_computations_) {
    computation->SetName(UniqueComputationName(computation->name()));
  }
  for (auto& computation : computations_) {
    HloComputation* raw = computation.get();
    if (raw == entry) {
      module->AddEntryComputation(std::move(computation));
    } else {
      module->AddEmbeddedComputation(std::move(computation));
    }
  }
  // XLA marks the computations fusions call.
  for (HloComputation* computation : module->computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      if (instruction->opcode() != HloOpcode::kFusion) continue;
      for (HloComputation* callee : instruction->called_computations()) {
        callee->SetIsFusionComputation(true);
      }
    }
  }
  if (!has_header) module->SetName(absl::StrCat("module_", entry->name()));
  if (!module->config().entry_computation_layout.has_value()) {
    ProgramShape layout = entry->ComputeProgramShape();
    layout.parameter_names.clear();
    module->config().entry_computation_layout = std::move(layout);
  }
  if (is_scheduled) {
    HloSchedule& schedule = module->mutable_schedule();
    for (HloComputation* computation : module->computations()) {
      if (!computation->IsFusionComputation()) {
        schedule.SetSequence(computation, computation->instructions());
      }
    }
  }
  InlineStackFrames(module.get());
  return module;
}

// ---------------------------------------------------------------------------
// Module header.

absl::Status HloParserImpl::ParseHeader(HloModule* module, bool* is_scheduled) {
  lexer_.Lex();  // HloModule
  std::string name;
  TS_RETURN_IF_ERROR(ParseName(&name));
  module->SetName(name);
  HloModuleConfig& config = module->config();
  AttrTable table;
  table.Add("is_scheduled", false, [this, is_scheduled] { return ParseBool(is_scheduled); });
  table.Add("replica_count", false, [this, &config] { return ParseInt64(&config.replica_count); });
  table.Add("num_partitions", false,
            [this, &config] { return ParseInt64(&config.num_partitions); });
  table.Add("input_output_alias", false,
            [this, &config] { return ParseInputOutputAliases(&config.input_output_alias); });
  table.Add("buffer_donor", false,
            [this, &config] { return ParseBufferDonors(&config.buffer_donors); });
  table.Add("alias_passthrough_params", false, [this] {
    const size_t offset = Offset();
    bool value = false;
    TS_RETURN_IF_ERROR(ParseBool(&value));
    if (value) return ErrorAt(offset, "alias_passthrough_params=true is not supported");
    return absl::OkStatus();
  });
  table.Add("entry_computation_layout", false, [this, &config] {
    ProgramShape layout;
    TS_RETURN_IF_ERROR(ParseComputationLayout(&layout));
    config.entry_computation_layout = std::move(layout);
    return absl::OkStatus();
  });
  table.Add("frontend_attributes", false,
            [this, &config] { return ParseFrontendAttributes(&config.frontend_attributes); });
  // XLA's default for both flags is {false}, which Tessera keeps as {}.
  auto bool_flags = [this](std::vector<bool>* flags) {
    TS_RETURN_IF_ERROR(ParseBoolListOrBool(flags));
    if (flags->size() == 1 && !(*flags)[0]) flags->clear();
    return absl::OkStatus();
  };
  table.Add("allow_spmd_sharding_propagation_to_parameters", false, [&config, bool_flags] {
    return bool_flags(&config.allow_spmd_sharding_propagation_to_parameters);
  });
  table.Add("allow_spmd_sharding_propagation_to_output", false, [&config, bool_flags] {
    return bool_flags(&config.allow_spmd_sharding_propagation_to_output);
  });
  table.Add("spmd_output_sharding", false, [this, &config] {
    HloSharding sharding;
    TS_RETURN_IF_ERROR(ParseSharding(&sharding));
    config.spmd_output_sharding = std::move(sharding);
    return absl::OkStatus();
  });
  // A list of shardings has the same text as a tuple sharding.
  table.Add("spmd_parameters_shardings", false, [this, &config] {
    HloSharding sharding;
    TS_RETURN_IF_ERROR(ParseSharding(&sharding));
    if (sharding.type == HloSharding::Type::kTuple) {
      config.spmd_parameters_shardings = std::move(sharding.tuple_shardings);
    } else {
      config.spmd_parameters_shardings = {std::move(sharding)};
    }
    return absl::OkStatus();
  });
  table.Add("origin_recovery_table", false, [this] {
    return ErrorAt(Offset(), "origin_recovery_table is not supported");
  });
  absl::flat_hash_set<std::string> seen;
  return ParseAttributeList(table, /*allow_attributes=*/true, &seen, "HloModule");
}

// FileNames / FunctionNames / FileLocations / StackFrames, each entry
// numbered from 1.
absl::Status HloParserImpl::ParseStackFrameIndex() {
  StackFrameIndex index;
  // Entries are looked up by position, so their numbers must count 1, 2, ...
  auto entry_number = [this](size_t entries_so_far) -> absl::Status {
    const int64_t expected = static_cast<int64_t>(entries_so_far) + 1;
    if (lexer_.token().int_value != expected || lexer_.token().int_negative) {
      return ErrorAt(Offset(), absl::StrCat("expected entry number ", expected, ", got ",
                                            lexer_.TokenSource()));
    }
    lexer_.Lex();
    return absl::OkStatus();
  };
  auto parse_numbered_strings = [this,
                                 entry_number](std::vector<std::string>* out) -> absl::Status {
    while (Kind() == TokKind::kInt) {
      TS_RETURN_IF_ERROR(entry_number(out->size()));
      std::string value;
      TS_RETURN_IF_ERROR(ParseString(&value));
      out->push_back(std::move(value));
    }
    return absl::OkStatus();
  };
  lexer_.Lex();  // FileNames
  TS_RETURN_IF_ERROR(parse_numbered_strings(&index.file_names));
  TS_RETURN_IF_ERROR(Expect(TokKind::kwFunctionNames, "'FunctionNames'"));
  TS_RETURN_IF_ERROR(parse_numbered_strings(&index.function_names));
  TS_RETURN_IF_ERROR(Expect(TokKind::kwFileLocations, "'FileLocations'"));
  while (Kind() == TokKind::kInt) {
    TS_RETURN_IF_ERROR(entry_number(index.file_locations.size()));
    StackFrameIndex::FileLocation location;
    AttrTable table;
    table.Add("file_name_id", true, [&] { return ParseInt64(&location.file_name_id); });
    table.Add("function_name_id", true, [&] { return ParseInt64(&location.function_name_id); });
    table.Add("line", true, [&] { return ParseInt64(&location.line); });
    table.Add("end_line", true, [&] { return ParseInt64(&location.end_line); });
    table.Add("column", true, [&] { return ParseInt64(&location.column); });
    table.Add("end_column", true, [&] { return ParseInt64(&location.end_column); });
    TS_RETURN_IF_ERROR(ParseSubAttributes(table, "file location"));
    index.file_locations.push_back(location);
  }
  TS_RETURN_IF_ERROR(Expect(TokKind::kwStackFrames, "'StackFrames'"));
  while (Kind() == TokKind::kInt) {
    TS_RETURN_IF_ERROR(entry_number(index.frames.size()));
    StackFrameIndex::Frame frame;
    AttrTable table;
    table.Add("file_location_id", true, [&] { return ParseInt64(&frame.file_location_id); });
    table.Add("parent_frame_id", true, [&] { return ParseInt64(&frame.parent_frame_id); });
    TS_RETURN_IF_ERROR(ParseSubAttributes(table, "stack frame"));
    index.frames.push_back(frame);
  }
  stack_frames_ = std::move(index);
  return absl::OkStatus();
}

void HloParserImpl::InlineStackFrames(HloModule* module) const {
  if (!stack_frames_.has_value()) return;
  const StackFrameIndex& index = *stack_frames_;
  auto in_range = [](int64_t id, size_t size) { return id >= 1 && id <= static_cast<int64_t>(size); };
  for (HloComputation* computation : module->computations()) {
    for (HloInstruction* instruction : computation->instructions()) {
      OpMetadata& metadata = instruction->mutable_attrs().metadata;
      const int64_t id = metadata.stack_frame_id;
      if (!in_range(id, index.frames.size())) continue;
      const int64_t location_id = index.frames[id - 1].file_location_id;
      if (!in_range(location_id, index.file_locations.size())) continue;
      const StackFrameIndex::FileLocation& location = index.file_locations[location_id - 1];
      if (in_range(location.file_name_id, index.file_names.size())) {
        metadata.source_file = index.file_names[location.file_name_id - 1];
      }
      metadata.source_line = static_cast<int32_t>(location.line);
      metadata.source_column = static_cast<int32_t>(location.column);
      metadata.stack_frame_id = 0;
    }
  }
}

// ---------------------------------------------------------------------------
// Computations.

std::string HloParserImpl::UniqueComputationName(absl::string_view base) {
  std::string name(base);
  for (int64_t i = 1; computation_names_.contains(name); ++i) name = absl::StrCat(base, ".", i);
  computation_names_.insert(name);
  return name;
}

// computation ::= ['ENTRY'] name ['(' params ')' '->' shape] '{' instr+ '}'
//                 [',' 'execution_thread=' string]
absl::Status HloParserImpl::ParseComputation() {
  const size_t entry_offset = Offset();
  const bool is_entry = EatIfPresent(TokKind::kwEntry);
  const size_t name_offset = Offset();
  std::string name;
  if (Kind() != TokKind::kName && Kind() != TokKind::kIdent) {
    return Expected(is_entry ? "the entry computation's name" : "a computation name");
  }
  TS_RETURN_IF_ERROR(ParseName(&name));
  if (computation_pool_.contains(name)) {
    return ErrorAt(name_offset, absl::StrCat("computation '", name, "' is already defined"));
  }
  computation_names_.insert(name);
  std::optional<Shape> declared_result;
  size_t declared_result_offset = 0;
  if (Kind() == TokKind::kLparen) {
    // The signature repeats the parameters' and root's shapes; as in XLA,
    // only the result is checked (against the root), then it is dropped.
    lexer_.Lex();
    if (Kind() != TokKind::kRparen) {
      do {
        std::string param;
        TS_RETURN_IF_ERROR(ParseName(&param));
        EatIfPresent(TokKind::kColon);
        Shape shape;
        TS_RETURN_IF_ERROR(ParseShape(&shape));
      } while (EatIfPresent(TokKind::kComma));
    }
    TS_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' to end the parameter list"));
    TS_RETURN_IF_ERROR(Expect(TokKind::kArrow, "'->' before the result shape"));
    declared_result_offset = Offset();
    Shape result;
    TS_RETURN_IF_ERROR(ParseShape(&result));
    declared_result = std::move(result);
  }
  TS_ASSIGN_OR_RETURN(HloComputation * computation, ParseInstructionList(name, name_offset));
  if (declared_result.has_value() &&
      !ShapesCompatible(*declared_result, computation->root_instruction()->shape())) {
    return ErrorAt(declared_result_offset,
                   absl::StrCat("computation '", name, "' is declared to return ",
                                ShapeToText(*declared_result, false), " but its root %",
                                computation->root_instruction()->name(), " has shape ",
                                ShapeToText(computation->root_instruction()->shape(), false)));
  }
  AttrTable table;
  table.Add("execution_thread", false, [this, computation] {
    std::string thread;
    TS_RETURN_IF_ERROR(ParseString(&thread));
    computation->SetExecutionThread(NormalizeThread(std::move(thread)));
    return absl::OkStatus();
  });
  absl::flat_hash_set<std::string> seen;
  TS_RETURN_IF_ERROR(ParseAttributeList(table, true, &seen, "a computation"));
  if (is_entry) {
    if (entry_ != nullptr) {
      return ErrorAt(entry_offset, "a module can have only one ENTRY computation");
    }
    entry_ = computation;
  }
  computation_pool_[name] = computation;
  return absl::OkStatus();
}

absl::StatusOr<HloComputation*> HloParserImpl::ParseInstructionList(const std::string& name,
                                                                    size_t name_offset) {
  auto computation = std::make_unique<HloComputation>(name);
  Scope scope;
  scope.computation = computation.get();
  ScopeGuard guard(&scopes_, &scope);
  TS_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to begin the computation's instructions"));
  if (Kind() == TokKind::kRbrace) return Expected("an instruction");
  bool has_root = false;
  std::string root_name;
  size_t root_offset = 0;
  do {
    TS_RETURN_IF_ERROR(ParseInstruction(scope, &has_root, &root_name, &root_offset));
  } while (Kind() != TokKind::kRbrace);
  lexer_.Lex();
  HloInstruction* root = scope.last;
  if (has_root) root = scope.names.at(root_name);
  computation->set_root_instruction(root);
  HloComputation* raw = computation.get();
  computations_.push_back(std::move(computation));
  (void)name_offset;
  return raw;
}

// instruction ::= ['ROOT'] name '=' [shape] opcode operands (',' attribute)*
absl::Status HloParserImpl::ParseInstruction(Scope& scope, bool* has_root, std::string* root_name,
                                             size_t* root_offset) {
  const size_t root_keyword_offset = Offset();
  const bool is_root = EatIfPresent(TokKind::kwRoot);
  const size_t name_offset = Offset();
  std::string name;
  if (Kind() == TokKind::kAttributeName) {  // "name=" without a space
    name = lexer_.token().text;
    lexer_.Lex();
  } else {
    if (Kind() != TokKind::kName && Kind() != TokKind::kIdent) {
      return Expected(is_root ? "the root instruction's name" : "an instruction name");
    }
    TS_RETURN_IF_ERROR(ParseName(&name));
    TS_RETURN_IF_ERROR(Expect(TokKind::kEqual, "'=' after the instruction name"));
  }
  if (is_root) {
    if (*has_root) {
      return ErrorAt(root_keyword_offset, "a computation can have only one ROOT instruction");
    }
    *has_root = true;
    *root_name = name;
    *root_offset = root_keyword_offset;
  }
  return ParseInstructionRhs(scope, std::move(name), name_offset, /*allow_attributes=*/true)
      .status();
}

absl::StatusOr<HloInstruction*> HloParserImpl::ParseInstructionRhs(Scope& scope, std::string name,
                                                                   size_t name_offset,
                                                                   bool allow_attributes) {
  TS_RETURN_IF_ERROR(EnterNesting());
  struct Leave {
    HloParserImpl* parser;
    ~Leave() { parser->LeaveNesting(); }
  } leave{this};

  PendingInstruction p;
  p.name = std::move(name);
  p.name_offset = name_offset;
  if (CanBeShape()) {
    Shape shape;
    TS_RETURN_IF_ERROR(ParseShape(&shape));
    p.shape = std::move(shape);
  }
  p.opcode_offset = Offset();
  if (Kind() != TokKind::kIdent) return Expected(p.shape ? "an opcode" : "a shape or an opcode");
  const std::string opcode_text = lexer_.token().text;
  std::optional<HloOpcode> wrapped;
  absl::StatusOr<HloOpcode> opcode = StringToHloOpcode(opcode_text);
  if (opcode.ok()) {
    p.opcode = *opcode;
  } else {
    // The async sugar: "<opcode>-start", "<opcode>-update", "<opcode>-done".
    constexpr std::pair<absl::string_view, HloOpcode> kSuffixes[] = {
        {"-start", HloOpcode::kAsyncStart},
        {"-update", HloOpcode::kAsyncUpdate},
        {"-done", HloOpcode::kAsyncDone}};
    for (const auto& [suffix, async_opcode] : kSuffixes) {
      if (!absl::EndsWith(opcode_text, suffix)) continue;
      absl::StatusOr<HloOpcode> inner =
          StringToHloOpcode(opcode_text.substr(0, opcode_text.size() - suffix.size()));
      if (inner.ok()) {
        p.opcode = async_opcode;
        wrapped = *inner;
      }
      break;
    }
    if (!wrapped.has_value()) {
      return ErrorAt(p.opcode_offset, absl::StrCat("unknown opcode '", opcode_text, "'"));
    }
  }
  lexer_.Lex();

  if (p.opcode == HloOpcode::kConstant) {
    if (!p.shape.has_value()) {
      return ErrorAt(p.opcode_offset, "constant needs an explicit result shape");
    }
    TS_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' before the constant's value"));
    Literal literal;
    TS_RETURN_IF_ERROR(ParseLiteral(*p.shape, &literal));
    TS_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' after the constant's value"));
    p.attrs.literal = std::move(literal);
  } else if (p.opcode == HloOpcode::kParameter) {
    TS_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' before the parameter number"));
    const size_t number_offset = Offset();
    TS_RETURN_IF_ERROR(ParseInt64(&p.attrs.parameter_number));
    if (p.attrs.parameter_number < 0) {
      return ErrorAt(number_offset, "expected a non-negative parameter number");
    }
    // HloComputation numbers parameters below 2^20 only (it keeps a table).
    if (p.attrs.parameter_number >= (int64_t{1} << 20)) {
      return ErrorAt(number_offset, absl::StrCat("parameter number ", p.attrs.parameter_number,
                                                 " is too large (the limit is 1048575)"));
    }
    TS_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' after the parameter number"));
  } else {
    TS_RETURN_IF_ERROR(ParseOperands(scope, &p.operands));
  }
  p.attributes_offset = Offset();
  if (wrapped.has_value()) return ParseSugaredAsync(scope, p, *wrapped, allow_attributes);

  TS_RETURN_IF_ERROR(CheckOperandCount(p));
  AttrTable table;
  AddCommonAttributes(scope, p, table);
  TS_RETURN_IF_ERROR(AddOpcodeAttributes(scope, p, table));
  TS_RETURN_IF_ERROR(
      ParseAttributeList(table, allow_attributes, &p.seen, HloOpcodeString(p.opcode)));
  TS_RETURN_IF_ERROR(FinishOpcodeAttributes(p));
  if (!p.shape.has_value()) TS_RETURN_IF_ERROR(InferShape(p));
  return AddToScope(scope, p);
}

// operands ::= '(' [operand (',' operand)*] ')'
// operand  ::= [shape] name | [shape] opcode operands   (a nested instruction)
absl::Status HloParserImpl::ParseOperands(Scope& scope, std::vector<HloInstruction*>* operands) {
  TS_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' to begin the operand list"));
  if (EatIfPresent(TokKind::kRparen)) return absl::OkStatus();
  do {
    const size_t operand_offset = Offset();
    HloLexer::State before = lexer_.Save();
    std::optional<Shape> declared;
    if (CanBeShape()) {
      Shape shape;
      TS_RETURN_IF_ERROR(ParseShape(&shape));
      declared = std::move(shape);
    }
    if (Kind() == TokKind::kIdent && lexer_.LookAhead() == TokKind::kLparen) {
      lexer_.Restore(std::move(before));
      TS_ASSIGN_OR_RETURN(HloInstruction * nested,
                          ParseInstructionRhs(scope, "", operand_offset,
                                              /*allow_attributes=*/false));
      operands->push_back(nested);
      continue;
    }
    const size_t name_offset = Offset();
    if (Kind() != TokKind::kName && Kind() != TokKind::kIdent) return Expected("an operand name");
    std::string name;
    TS_RETURN_IF_ERROR(ParseName(&name));
    auto it = scope.names.find(name);
    if (it == scope.names.end()) {
      return ErrorAt(name_offset, absl::StrCat("unknown instruction '", name,
                                               "' (operands must be defined before use)"));
    }
    if (declared.has_value() && !ShapesCompatible(*declared, it->second->shape())) {
      return ErrorAt(operand_offset,
                     absl::StrCat("operand shape ", ShapeToText(*declared, true),
                                  " does not match %", name, "'s shape ",
                                  ShapeToText(it->second->shape(), true)));
    }
    operands->push_back(it->second);
    if (Kind() != TokKind::kComma && Kind() != TokKind::kRparen) {
      return Expected("',' or ')' after an operand");
    }
  } while (EatIfPresent(TokKind::kComma));
  return Expect(TokKind::kRparen, "')' to end the operand list");
}

absl::StatusOr<HloInstruction*> HloParserImpl::AddToScope(Scope& scope, PendingInstruction& p) {
  if (p.name.empty()) {
    // A nested instruction: "<opcode>.anon", made unique, as XLA names it.
    const std::string base = absl::StrCat(HloOpcodeString(p.opcode), ".anon");
    p.name = base;
    for (int64_t i = 1; scope.names.contains(p.name); ++i) p.name = absl::StrCat(base, ".", i);
  }
  if (scope.names.contains(p.name)) {
    return ErrorAt(p.name_offset,
                   absl::StrCat("instruction '", p.name, "' is already defined in this computation"));
  }
  if (p.opcode == HloOpcode::kParameter) {
    const int64_t number = p.attrs.parameter_number;
    auto it = scope.parameters.find(number);
    if (it != scope.parameters.end()) {
      return ErrorAt(p.opcode_offset, absl::StrCat("parameter number ", number,
                                                   " is already used by %", it->second->name()));
    }
  }
  std::unique_ptr<HloInstruction> instruction =
      HloInstruction::Create(p.opcode, *p.shape, p.operands);
  instruction->mutable_attrs() = std::move(p.attrs);
  for (HloComputation* callee : p.called) instruction->AppendCalledComputation(callee);
  instruction->SetName(p.name);
  HloInstruction* raw = scope.computation->AddInstruction(std::move(instruction));
  for (HloInstruction* predecessor : p.control_predecessors) {
    TS_RETURN_IF_ERROR(predecessor->AddControlDependencyTo(raw));
  }
  scope.names[p.name] = raw;
  if (p.opcode == HloOpcode::kParameter) scope.parameters[raw->parameter_number()] = raw;
  scope.last = raw;
  return raw;
}

// A computation attribute: a name defined earlier, or an inline body.
absl::StatusOr<HloComputation*> HloParserImpl::ParseComputationReference() {
  if (Kind() == TokKind::kLbrace) {
    TS_RETURN_IF_ERROR(EnterNesting());
    struct Leave {
      HloParserImpl* parser;
      ~Leave() { parser->LeaveNesting(); }
    } leave{this};
    const size_t offset = Offset();
    TS_ASSIGN_OR_RETURN(HloComputation * inline_body, ParseInstructionList("_", offset));
    generated_computations_.push_back(inline_body);  // named at the end
    return inline_body;
  }
  const size_t offset = Offset();
  std::string name;
  if (Kind() != TokKind::kName && Kind() != TokKind::kIdent) {
    return Expected("a computation name");
  }
  TS_RETURN_IF_ERROR(ParseName(&name));
  auto it = computation_pool_.find(name);
  if (it == computation_pool_.end()) {
    return ErrorAt(offset, absl::StrCat("unknown computation '", name,
                                        "' (computations must be defined before use)"));
  }
  return it->second;
}

absl::Status HloParserImpl::ParseComputationList(std::vector<HloComputation*>* result) {
  TS_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to begin a list of computations"));
  if (EatIfPresent(TokKind::kRbrace)) return absl::OkStatus();
  do {
    TS_ASSIGN_OR_RETURN(HloComputation * computation, ParseComputationReference());
    result->push_back(computation);
  } while (EatIfPresent(TokKind::kComma));
  return Expect(TokKind::kRbrace, "'}' to end the list of computations");
}

absl::Status HloParserImpl::ParseInstructionNameList(Scope& scope,
                                                     std::vector<HloInstruction*>* result) {
  TS_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to begin a list of instruction names"));
  if (EatIfPresent(TokKind::kRbrace)) return absl::OkStatus();
  do {
    const size_t offset = Offset();
    std::string name;
    TS_RETURN_IF_ERROR(ParseName(&name));
    auto it = scope.names.find(name);
    if (it == scope.names.end()) {
      return ErrorAt(offset, absl::StrCat("unknown instruction '", name, "'"));
    }
    result->push_back(it->second);
  } while (EatIfPresent(TokKind::kComma));
  return Expect(TokKind::kRbrace, "'}' to end the list of instruction names");
}

}  // namespace parser_internal

absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(absl::string_view text) {
  parser_internal::HloParserImpl parser(text);
  return parser.ParseModule();
}

absl::StatusOr<Shape> ParseShape(absl::string_view text) {
  parser_internal::HloParserImpl parser(text);
  return parser.ParseShapeOnly();
}

absl::StatusOr<Literal> ParseLiteral(absl::string_view text, const Shape& shape) {
  parser_internal::HloParserImpl parser(text);
  return parser.ParseLiteralOnly(shape);
}

absl::StatusOr<HloSharding> ParseSharding(absl::string_view text) {
  parser_internal::HloParserImpl parser(text);
  return parser.ParseShardingOnly();
}

}  // namespace tessera
