// The recursive-descent parser behind hlo_parser.h, shared by its source
// files: hlo_parser.cc (modules, computations, instructions, operands),
// hlo_instruction_parser.cc (each opcode's attributes),
// hlo_attribute_parser.cc (attribute values: windows, dimension numbers,
// metadata, shardings, ...) and hlo_literal_parser.cc (shapes, layouts,
// literals, numbers).  Not part of the public API.
#ifndef TESSERA_HLO_PARSER_HLO_PARSER_INTERNAL_H_
#define TESSERA_HLO_PARSER_HLO_PARSER_INTERNAL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/ir/hlo_attributes.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/ir/hlo_module.h"
#include "hlo/ir/literal.h"
#include "hlo/parser/hlo_lexer.h"
#include "hlo/parser/hlo_text_util.h"

namespace tessera {
namespace parser_internal {

// The attributes an instruction (or a brace-delimited group of
// sub-attributes) accepts: for each name, whether it is required and how to
// parse its value (the lexer sits on the value when `parse` runs).
// A table holds a dozen or so entries and is built for every instruction,
// so it is a plain vector searched linearly (cheaper than a hash map here).
class AttrTable {
 public:
  struct Entry {
    std::string name;
    bool required = false;
    std::function<absl::Status()> parse;
  };

  AttrTable() { entries_.reserve(24); }

  // Adds `name`, replacing an entry of that name.
  void Add(std::string name, bool required, std::function<absl::Status()> parse) {
    for (Entry& entry : entries_) {
      if (entry.name == name) {
        entry.required = required;
        entry.parse = std::move(parse);
        return;
      }
    }
    entries_.push_back(Entry{std::move(name), required, std::move(parse)});
  }
  // The entry named `name`, or null.
  const Entry* Find(absl::string_view name) const {
    for (const Entry& entry : entries_) {
      if (entry.name == name) return &entry;
    }
    return nullptr;
  }
  bool Has(absl::string_view name) const { return Find(name) != nullptr; }
  void Remove(absl::string_view name) {
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->name == name) {
        entries_.erase(it);
        return;
      }
    }
  }
  const std::vector<Entry>& entries() const { return entries_; }
  // "a, b, c", sorted, for error messages.
  std::string Names() const;
  // The first (in sorted order) required entry not in `seen`, or "".
  std::string FirstMissing(const absl::flat_hash_set<std::string>& seen) const;

 private:
  std::vector<Entry> entries_;
};

// An instruction between its name and its creation.
struct PendingInstruction {
  std::string name;
  size_t name_offset = 0;
  size_t opcode_offset = 0;
  size_t attributes_offset = 0;  // where ", attr=..." would begin
  std::optional<Shape> shape;
  HloOpcode opcode = HloOpcode::kAdd;
  std::vector<HloInstruction*> operands;
  HloAttributes attrs;
  std::vector<HloComputation*> called;
  std::vector<HloInstruction*> control_predecessors;
  absl::flat_hash_set<std::string> seen;  // attribute names given
  // Computation-valued attributes by name ("to_apply", "condition", ...),
  // ordered into `called` once all attributes are read.
  absl::flat_hash_map<std::string, std::vector<HloComputation*>> computations;
};

// One computation being parsed: its instructions by name.
struct Scope {
  HloComputation* computation = nullptr;
  absl::flat_hash_map<std::string, HloInstruction*> names;
  absl::flat_hash_map<int64_t, HloInstruction*> parameters;
  HloInstruction* last = nullptr;
};

// XLA's stack frame index (FileNames/FunctionNames/FileLocations/
// StackFrames), used to inline frames into metadata.
struct StackFrameIndex {
  struct FileLocation {
    int64_t file_name_id = 0;
    int64_t function_name_id = 0;
    int64_t line = 0;
    int64_t end_line = 0;
    int64_t column = 0;
    int64_t end_column = 0;
  };
  struct Frame {
    int64_t file_location_id = 0;
    int64_t parent_frame_id = 0;
  };
  std::vector<std::string> file_names;
  std::vector<std::string> function_names;
  std::vector<FileLocation> file_locations;
  std::vector<Frame> frames;
};

class HloParserImpl {
 public:
  explicit HloParserImpl(absl::string_view text);

  // Entry points (hlo_parser.cc).
  absl::StatusOr<std::unique_ptr<HloModule>> ParseModule();
  absl::StatusOr<Shape> ParseShapeOnly();
  absl::StatusOr<Literal> ParseLiteralOnly(const Shape& shape);
  absl::StatusOr<HloSharding> ParseShardingOnly();

  // ---- Tokens and errors (hlo_parser.cc) ---------------------------------
  // "line L, column C: <message>".
  absl::Status ErrorAt(size_t offset, absl::string_view message) const;
  // "line L, column C: expected <expected>, got <current token>".
  absl::Status Expected(absl::string_view expected) const;
  std::string DescribeCurrentToken() const;
  // Consumes a token of `kind` or fails with "expected <what>".
  absl::Status Expect(TokKind kind, absl::string_view what);
  bool EatIfPresent(TokKind kind);
  size_t Offset() const { return lexer_.token().offset; }
  TokKind Kind() const { return lexer_.kind(); }
  // Guards recursion on nested input (tuples, literals, nested
  // instructions); fails past a fixed depth instead of overflowing the stack.
  absl::Status EnterNesting();
  void LeaveNesting() { --depth_; }

  // ---- Modules, computations, instructions (hlo_parser.cc) ---------------
  absl::Status ParseHeader(HloModule* module, bool* has_header);
  absl::Status ParseStackFrameIndex();
  absl::Status ParseComputation();
  // Parses `{ instructions }` into a new computation named `name`.
  absl::StatusOr<HloComputation*> ParseInstructionList(const std::string& name,
                                                       size_t name_offset);
  absl::Status ParseInstruction(Scope& scope, bool* has_root, std::string* root_name,
                                size_t* root_offset);
  // Parses `[shape] opcode(operands) [, attributes]` and adds the
  // instruction to `scope`.  Nested (anonymous) instructions take no
  // attributes.
  absl::StatusOr<HloInstruction*> ParseInstructionRhs(Scope& scope, std::string name,
                                                      size_t name_offset,
                                                      bool allow_attributes);
  absl::Status ParseOperands(Scope& scope, std::vector<HloInstruction*>* operands);
  absl::StatusOr<HloInstruction*> AddToScope(Scope& scope, PendingInstruction& pending);
  absl::StatusOr<HloComputation*> ParseComputationReference();
  absl::Status ParseComputationList(std::vector<HloComputation*>* result);
  absl::Status ParseInstructionNameList(Scope& scope, std::vector<HloInstruction*>* result);
  std::string UniqueComputationName(absl::string_view base);

  // ---- Attributes of instructions (hlo_instruction_parser.cc) ------------
  // Parses ", name=value" pairs against `table`; records names in `seen`.
  // A required attribute that is missing is reported at the end of the
  // text read so far.
  absl::Status ParseAttributeList(const AttrTable& table, bool allow_attributes,
                                  absl::flat_hash_set<std::string>* seen,
                                  absl::string_view context);
  // `{name=value, ...}` or `{name=value name=value}` (commas optional).
  absl::Status ParseSubAttributes(const AttrTable& table, absl::string_view context);
  void AddCommonAttributes(Scope& scope, PendingInstruction& p, AttrTable& table);
  // Adds the opcode's own attributes of `p` to `table`.
  absl::Status AddOpcodeAttributes(Scope& scope, PendingInstruction& p, AttrTable& table);
  // Defaults and checks once all attributes are read.
  absl::Status FinishOpcodeAttributes(PendingInstruction& p);
  absl::Status CheckOperandCount(const PendingInstruction& p) const;
  absl::Status InferShape(PendingInstruction& p) const;
  // The async syntax sugar: `custom-call-start(...)` and friends.
  absl::StatusOr<HloInstruction*> ParseSugaredAsync(Scope& scope, PendingInstruction& start,
                                                    HloOpcode wrapped_opcode,
                                                    bool allow_attributes);

  // ---- Attribute values (hlo_attribute_parser.cc) -------------------------
  absl::Status ParseInt64List(TokKind open, TokKind close, TokKind separator,
                              std::vector<int64_t>* result);
  absl::Status ParseBracedInt64List(std::vector<int64_t>* result);  // {1,2}
  absl::Status ParseBracedInt64ListList(std::vector<std::vector<int64_t>>* result);
  absl::Status ParseSingleBracedInt64(int64_t* result, absl::string_view what);  // {1}
  absl::Status ParseBoolList(std::vector<bool>* result);           // {true,false}
  absl::Status ParseBoolListOrBool(std::vector<bool>* result);     // true | {..}
  absl::Status ParseEnum(absl::Span<const EnumSpelling> table, bool ignore_case,
                         absl::string_view what, int32_t* value);
  absl::Status ParseWindow(Window* window, bool expect_braces);
  absl::Status ParseConvolutionDimensionNumbers(ConvolutionDimensionNumbers* dnums);
  absl::Status ParsePaddingConfig(PaddingConfig* padding);
  absl::Status ParseSliceRanges(std::vector<SliceDimension>* slices);
  absl::Status ParsePrecisionList(std::vector<Precision>* precisions);
  absl::Status ParseMetadata(OpMetadata* metadata);
  absl::Status ParseMetadataList(std::vector<OpMetadata>* metadata);
  absl::Status ParseFrontendAttributes(FrontendAttributes* attributes);
  absl::Status ParseStatistics(StatisticsViz* statistics);
  absl::Status ParseStringOrJsonDict(std::string* result);
  absl::Status ParseReplicaGroups(HloAttributes* attrs);
  absl::Status ParseShapeIndex(ShapeIndex* index);
  absl::Status ParseOutputOperandAliasing(std::vector<OutputOperandAliasing>* aliasing);
  absl::Status ParseInputOutputAliases(std::vector<InputOutputAlias>* aliases);
  absl::Status ParseBufferDonors(std::vector<BufferDonor>* donors);
  absl::Status ParseComputationLayout(ProgramShape* layout);
  absl::Status ParseShapeList(std::vector<Shape>* shapes);
  absl::Status ParseSharding(HloSharding* sharding);
  absl::Status ParseSingleSharding(HloSharding* sharding, bool brace_consumed);
  absl::Status ParseTileAssignment(HloSharding* sharding);
  absl::Status ParseIotaArray(std::vector<int64_t>* reshape_dims,
                              std::vector<int64_t>* transpose_perm);
  absl::Status ParseDomain(HloAttributes* attrs);

  // ---- Shapes, layouts, literals, scalars (hlo_literal_parser.cc) --------
  bool CanBeShape();
  absl::Status ParseShape(Shape* shape);
  absl::Status ParseLayout(Layout* layout);
  absl::Status ParseLiteral(const Shape& shape, Literal* literal);
  // A literal with its own shape: "s32[2]{0} {1, 2}" or "( a, b )".
  absl::Status ParseLiteralWithShape(Literal* literal);
  absl::Status ParseInt64(int64_t* value);
  absl::Status ParseDouble(double* value);
  absl::Status ParseBool(bool* value);
  absl::Status ParseString(std::string* value);
  absl::Status ParseName(std::string* value);

  HloLexer& lexer() { return lexer_; }

 private:
  absl::Status ParseArrayLiteral(const Shape& shape, Literal* literal);
  absl::Status ParseTupleLiteral(const Shape& shape, Literal* literal);
  absl::Status StoreLiteralElement(Literal* literal, int64_t index, size_t offset);
  void InlineStackFrames(HloModule* module) const;

  HloLexer lexer_;
  int depth_ = 0;

  // Module state.
  std::vector<std::unique_ptr<HloComputation>> computations_;  // in completion order
  absl::flat_hash_map<std::string, HloComputation*> computation_pool_;
  absl::flat_hash_set<std::string> computation_names_;  // every name given out
  HloComputation* entry_ = nullptr;
  // Computations the parser names itself: inline bodies and the bodies of
  // sugared async ops.
  std::vector<HloComputation*> generated_computations_;
  std::optional<StackFrameIndex> stack_frames_;
  std::vector<Scope*> scopes_;  // innermost last
};

// Shapes: the default row-major layout on every array leaf that has none.
void SetDefaultLayouts(Shape* shape);

// XLA's canonical form of an iota device list: size-1 dimensions dropped
// and runs of dimensions that stay in order merged ([2,2]T(0,1) -> [4]).
void CanonicalizeIota(std::vector<int64_t>* reshape_dims, std::vector<int64_t>* transpose_perm);

}  // namespace parser_internal
}  // namespace tessera

#endif  // TESSERA_HLO_PARSER_HLO_PARSER_INTERNAL_H_
