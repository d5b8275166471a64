#include "service/compile_service.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/cpu/cpu_compiler.h"
#include "backends/llvm_ir/llvm_jit.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "hlo/analysis/hlo_verifier.h"
#include "hlo/ir/status_macros.h"
#include "hlo/proto/hlo_proto_export.h"
#include "hlo/proto/hlo_proto_import.h"
#include "hlo/proto/literal_proto.h"
#include "hlo/proto/shape_proto.h"
#include "service/request_limits.h"

namespace tessera {
namespace service {
namespace {

grpc::Status ToGrpc(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      std::string(status.message()));
}

std::string DeterministicBytes(const google::protobuf::Message& message) {
  std::string bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  message.SerializeToCodedStream(&coded);
  coded.Trim();
  return bytes;
}

// The bytes an executable holds: its constants and its run arena.
int64_t ExecutableBytes(const LoadedExecutable& executable) {
  int64_t bytes = 0;
  for (const runtime::Allocation& allocation :
       executable.executable().executable().plan().allocations()) {
    if (allocation.kind == runtime::Allocation::Kind::kConstant ||
        allocation.kind == runtime::Allocation::Kind::kTemp) {
      bytes += allocation.size;
    }
  }
  return bytes;
}

class SlotGuard {
 public:
  explicit SlotGuard(std::function<void()> release) : release_(std::move(release)) {}
  ~SlotGuard() { release_(); }

 private:
  std::function<void()> release_;
};

}  // namespace

CompileServiceImpl::CompileServiceImpl(ServiceOptions options)
    : options_(std::move(options)),
      client_(*LocalClient::Create()),
      cache_(options_.max_executables, options_.max_executable_bytes),
      buffers_(options_.max_buffer_bytes),
      execution_slots_(options_.concurrent_executions),
      compile_slots_(options_.concurrent_compiles) {}

absl::Status CompileServiceImpl::Authorize(const grpc::ServerContext& context) const {
  if (options_.auth_token.empty()) return absl::OkStatus();
  const std::string expected = absl::StrCat("Bearer ", options_.auth_token);
  const auto& metadata = context.client_metadata();
  auto found = metadata.find("authorization");
  if (found == metadata.end()) {
    return absl::UnauthenticatedError("this server requires an `authorization: Bearer TOKEN` header");
  }
  const std::string given(found->second.data(), found->second.size());
  // Compared in time independent of where they differ.
  unsigned difference = given.size() != expected.size();
  for (size_t i = 0; i < given.size() && i < expected.size(); ++i) {
    difference |= static_cast<unsigned char>(given[i] ^ expected[i]);
  }
  if (difference != 0) return absl::UnauthenticatedError("wrong token");
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Compile
// ---------------------------------------------------------------------------

absl::StatusOr<std::shared_ptr<const CachedExecutable>> CompileServiceImpl::CompileNew(
    grpc::ServerContext* context, const CompileRequest& request, const CompileOptions& options,
    const std::string& key) {
  int64_t instructions = 0;
  for (const xla::HloComputationProto& computation : request.module().computations()) {
    instructions += computation.instructions_size();
  }
  if (instructions > options_.max_instructions) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the module has ", instructions, " instructions; this server compiles at most ",
        options_.max_instructions));
  }
  TS_RETURN_IF_ERROR(compile_slots_.Acquire(context, "compile"));
  SlotGuard slot([this] { compile_slots_.Release(); });
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::unique_ptr<HloModule>> module = ImportHloModuleProto(request.module());
  if (!module.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed module: ", module.status().message()));
  }
  if (absl::Status verified = VerifyHloModule(**module); !verified.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("module does not verify: ", verified.message()));
  }
  TS_RETURN_IF_ERROR(CheckModuleValueSizes(**module, options_.max_value_bytes));
  CachedExecutable fresh;
  fresh.key = key;
  fresh.program_shape = ProgramShapeToProto((*module)->entry_computation()->ComputeProgramShape());
  absl::StatusOr<std::unique_ptr<LoadedExecutable>> executable =
      client_->Compile(*std::move(module), options);
  if (!executable.ok()) {
    // A module that verified but does not compile: an op or a form the
    // backend lacks, unless the compiler says otherwise.
    const absl::StatusCode code = executable.status().code() == absl::StatusCode::kInternal
                                      ? absl::StatusCode::kUnimplemented
                                      : executable.status().code();
    return absl::Status(code, absl::StrCat("compiling for ", options.backend, ": ",
                                           executable.status().message()));
  }
  fresh.bytes = ExecutableBytes(**executable);
  fresh.executable = std::shared_ptr<const LoadedExecutable>(std::move(*executable));
  fresh.stats.set_compile_ms(
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  return cache_.Insert(std::move(fresh));
}

absl::Status CompileServiceImpl::DoCompile(grpc::ServerContext* context,
                                           const CompileRequest& request,
                                           CompileResponse* response) {
  const auto start = std::chrono::steady_clock::now();
  ++compile_requests_;
  if (!request.has_module()) return absl::InvalidArgumentError("the request has no module");
  CompileOptions options;
  options.backend =
      request.options().backend().empty() ? options_.default_backend : request.options().backend();
  const std::vector<std::string> backends = LocalClient::Backends();
  if (std::find(backends.begin(), backends.end(), options.backend) == backends.end()) {
    return absl::InvalidArgumentError(absl::StrCat("unknown backend '", options.backend,
                                                   "' (have: ", absl::StrJoin(backends, ", "),
                                                   ")"));
  }
  options.donatable_parameters.assign(request.options().donatable_parameters().begin(),
                                      request.options().donatable_parameters().end());
  CompileOptionsProto key_options = request.options();
  key_options.set_backend(options.backend);
  key_options.set_return_optimized_module(false);
  const std::string key = llvm_ir::Sha256Hex(
      absl::StrCat(DeterministicBytes(request.module()), "\n", DeterministicBytes(key_options)));

  std::shared_ptr<const CachedExecutable> entry = cache_.Lookup(key);
  bool hit = entry != nullptr;
  while (entry == nullptr) {
    // One compile per key at a time; the others wait for it.
    std::shared_future<absl::Status> pending;
    std::promise<absl::Status> mine;
    {
      std::lock_guard<std::mutex> lock(compiling_mutex_);
      auto found = compiling_.find(key);
      if (found != compiling_.end()) {
        pending = found->second;
      } else {
        compiling_[key] = mine.get_future().share();
      }
    }
    if (pending.valid()) {
      while (pending.wait_for(std::chrono::milliseconds(10)) != std::future_status::ready) {
        if (context->IsCancelled()) return absl::CancelledError("the call was cancelled");
      }
      TS_RETURN_IF_ERROR(pending.get());
      entry = cache_.Lookup(key);  // null only if evicted meanwhile: compile again
      hit = entry != nullptr;
      continue;
    }
    absl::StatusOr<std::shared_ptr<const CachedExecutable>> compiled =
        CompileNew(context, request, options, key);
    {
      std::lock_guard<std::mutex> lock(compiling_mutex_);
      compiling_.erase(key);
    }
    mine.set_value(compiled.status());
    TS_RETURN_IF_ERROR(compiled.status());
    entry = *std::move(compiled);
  }
  if (hit) ++cache_hits_;
  response->set_handle(entry->handle);
  *response->mutable_program_shape() = entry->program_shape;
  response->mutable_stats()->set_cache_hit(hit);
  response->mutable_stats()->set_compile_ms(
      hit ? std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count()
          : entry->stats.compile_ms());
  if (request.options().return_optimized_module()) {
    TS_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> optimized,
                        ImportHloModuleProto(request.module()));
    if (options.backend == "cpu") {
      TS_RETURN_IF_ERROR(
          cpu::MakeCpuPipeline(cpu::CpuCompileOptions())->Run(optimized.get()).status());
    }
    TS_ASSIGN_OR_RETURN(*response->mutable_optimized_module(), ExportHloModuleProto(*optimized));
  }
  return absl::OkStatus();
}

grpc::Status CompileServiceImpl::Compile(grpc::ServerContext* context,
                                         const CompileRequest* request,
                                         CompileResponse* response) {
  if (absl::Status status = Authorize(*context); !status.ok()) return ToGrpc(status);
  return ToGrpc(DoCompile(context, *request, response));
}

// ---------------------------------------------------------------------------
// Execute
// ---------------------------------------------------------------------------

absl::Status CompileServiceImpl::DoExecute(grpc::ServerContext* context,
                                           const ExecuteRequest& request,
                                           ExecuteResponse* response) {
  ++execute_requests_;
  std::shared_ptr<const CachedExecutable> entry = cache_.Get(request.handle());
  if (entry == nullptr) {
    return absl::NotFoundError(absl::StrCat("no executable with handle ", request.handle(),
                                            " (never compiled, unloaded or evicted)"));
  }
  const LoadedExecutable& executable = *entry->executable;
  const ProgramShape& program = executable.program_shape();
  const int64_t count = static_cast<int64_t>(program.parameters.size());
  if (request.arguments_size() != count) {
    return absl::InvalidArgumentError(absl::StrCat(executable.name(), " takes ", count,
                                                   " argument(s), got ",
                                                   request.arguments_size()));
  }
  bool all_literals = !request.keep_results_on_server();
  std::vector<Literal> literals(count);
  std::vector<std::shared_ptr<DeviceBuffer>> buffers(count);
  ExecuteOptions execute_options;
  for (int64_t i = 0; i < count; ++i) {
    const Argument& argument = request.arguments(static_cast<int>(i));
    const std::string what = absl::StrCat("argument ", i);
    switch (argument.value_case()) {
      case Argument::kLiteral: {
        TS_ASSIGN_OR_RETURN(literals[i],
                            LiteralFromWire(argument.literal(), options_.max_value_bytes, what));
        if (!ShapesCompatible(literals[i].shape(), program.parameters[i])) {
          std::string name = i < static_cast<int64_t>(program.parameter_names.size())
                                 ? absl::StrCat(" (", program.parameter_names[i], ")")
                                 : "";
          return absl::InvalidArgumentError(absl::StrCat(
              what, name, " expects ", program.parameters[i].ToString(), ", got ",
              literals[i].shape().ToString()));
        }
        break;
      }
      case Argument::kBufferHandle: {
        all_literals = false;
        absl::StatusOr<std::shared_ptr<DeviceBuffer>> buffer =
            argument.donate() ? buffers_.Take(argument.buffer_handle())
                              : buffers_.Get(argument.buffer_handle());
        if (!buffer.ok()) {
          return absl::Status(buffer.status().code(),
                              absl::StrCat(what, ": ", buffer.status().message()));
        }
        buffers[i] = *std::move(buffer);
        if (argument.donate()) execute_options.donated_arguments.push_back(i);
        break;
      }
      default:
        return absl::InvalidArgumentError(
            absl::StrCat(what, " has neither a literal nor a buffer handle"));
    }
  }
  if (context->IsCancelled()) return absl::CancelledError("the call was cancelled");
  TS_RETURN_IF_ERROR(execution_slots_.Acquire(context, "execute"));
  SlotGuard slot([this] { execution_slots_.Release(); });
  // The run stops between its steps when the call is cancelled or its
  // deadline passes, so that an endless loop cannot hold the slot.
  CallWatcher::Handle watched = watcher_.Watch(context);
  SlotGuard stop_watching([&] { watcher_.Unwatch(watched); });
  const std::atomic<bool>& cancelled = watched->cancelled;
  execute_options.cancelled = &cancelled;
  ExecuteOptions literal_options;
  literal_options.cancelled = &cancelled;
  const auto start = std::chrono::steady_clock::now();
  Literal result;
  auto stopped = [&](const absl::Status& status) {
    if (status.code() != absl::StatusCode::kCancelled || context->IsCancelled()) return status;
    return absl::DeadlineExceededError(absl::StrCat("the deadline passed: ", status.message()));
  };
  if (all_literals) {
    absl::StatusOr<Literal> ran = executable.Execute(literals, literal_options);
    if (!ran.ok()) return stopped(ran.status());
    result = *std::move(ran);
  } else {
    std::vector<DeviceBuffer*> arguments(count);
    for (int64_t i = 0; i < count; ++i) {
      if (buffers[i] == nullptr) {
        TS_ASSIGN_OR_RETURN(std::unique_ptr<DeviceBuffer> transferred,
                            client_->TransferToDevice(literals[i]));
        buffers[i] = std::move(transferred);
        execute_options.donated_arguments.push_back(i);  // our own copy
      }
      arguments[i] = buffers[i].get();
    }
    absl::StatusOr<std::vector<std::unique_ptr<DeviceBuffer>>> ran =
        executable.ExecuteBuffers(arguments, execute_options);
    if (!ran.ok()) return stopped(ran.status());
    std::vector<std::unique_ptr<DeviceBuffer>> outputs = *std::move(ran);
    if (request.keep_results_on_server()) {
      for (std::unique_ptr<DeviceBuffer>& output : outputs) {
        TS_ASSIGN_OR_RETURN(uint64_t handle, buffers_.Add(std::move(output)));
        response->add_result_buffer_handles(handle);
      }
    } else if (program.result.IsTuple()) {
      std::vector<Literal> elements;
      for (const std::unique_ptr<DeviceBuffer>& output : outputs) {
        TS_ASSIGN_OR_RETURN(Literal element, output->ToLiteral());
        elements.push_back(std::move(element));
      }
      result = Literal::MakeTuple(std::move(elements));
    } else {
      TS_ASSIGN_OR_RETURN(result, outputs.at(0)->ToLiteral());
    }
  }
  response->set_execute_ms(
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  if (!request.keep_results_on_server()) {
    TS_ASSIGN_OR_RETURN(*response->mutable_result(), LiteralToProto(result));
  }
  return absl::OkStatus();
}

grpc::Status CompileServiceImpl::Execute(grpc::ServerContext* context,
                                         const ExecuteRequest* request,
                                         ExecuteResponse* response) {
  if (absl::Status status = Authorize(*context); !status.ok()) return ToGrpc(status);
  absl::Status status = DoExecute(context, *request, response);
  if (!status.ok()) ++execute_errors_;
  return ToGrpc(status);
}

grpc::Status CompileServiceImpl::ExecuteStream(
    grpc::ServerContext* context, grpc::ServerReaderWriter<ExecuteChunk, ExecuteChunk>* stream) {
  if (absl::Status status = Authorize(*context); !status.ok()) return ToGrpc(status);
  ExecuteChunk header;
  if (!stream->Read(&header)) {
    return ToGrpc(absl::InvalidArgumentError("the stream ended before its header"));
  }
  constexpr int64_t kMaxArguments = 1 << 16;
  if (header.argument_count() < 0 || header.argument_count() > kMaxArguments) {
    return ToGrpc(absl::InvalidArgumentError(
        absl::StrCat("argument_count ", header.argument_count(), " is out of range")));
  }
  ExecuteRequest request;
  request.set_handle(header.handle());
  for (int64_t index = 0; index < header.argument_count(); ++index) {
    std::string bytes;
    ExecuteChunk chunk;
    bool last = false;
    while (!last) {
      if (!stream->Read(&chunk)) {
        return ToGrpc(absl::InvalidArgumentError(
            absl::StrCat("the stream ended inside argument ", index)));
      }
      if (chunk.index() != index) {
        return ToGrpc(absl::InvalidArgumentError(absl::StrCat(
            "chunk for argument ", chunk.index(), " while argument ", index, " is incomplete")));
      }
      // A literal's encoding is a little larger than its values.
      if (static_cast<int64_t>(bytes.size() + chunk.data().size()) >
          options_.max_value_bytes + (int64_t{1} << 20)) {
        return ToGrpc(absl::ResourceExhaustedError(absl::StrCat(
            "argument ", index, " is over the server's limit of ", options_.max_value_bytes,
            " bytes per value")));
      }
      bytes += chunk.data();
      last = chunk.last();
    }
    if (!request.add_arguments()->mutable_literal()->ParseFromString(bytes)) {
      return ToGrpc(absl::InvalidArgumentError(
          absl::StrCat("argument ", index, " is not a serialized LiteralProto")));
    }
  }
  ExecuteResponse response;
  absl::Status status = DoExecute(context, request, &response);
  if (!status.ok()) {
    ++execute_errors_;
    return ToGrpc(status);
  }
  const std::string result = response.result().SerializeAsString();
  constexpr size_t kChunk = size_t{1} << 20;
  size_t offset = 0;
  do {
    ExecuteChunk out;
    out.set_handle(header.handle());
    out.set_index(0);
    out.set_data(result.substr(offset, kChunk));
    offset += kChunk;
    out.set_last(offset >= result.size());
    if (!stream->Write(out)) return ToGrpc(absl::CancelledError("the client went away"));
  } while (offset < result.size());
  return grpc::Status::OK;
}

// ---------------------------------------------------------------------------
// Buffers, unloading, backends, stats
// ---------------------------------------------------------------------------

grpc::Status CompileServiceImpl::TransferToServer(grpc::ServerContext* context,
                                                  const TransferToServerRequest* request,
                                                  TransferToServerResponse* response) {
  if (absl::Status status = Authorize(*context); !status.ok()) return ToGrpc(status);
  absl::StatusOr<Literal> literal =
      LiteralFromWire(request->literal(), options_.max_value_bytes, "the literal");
  if (!literal.ok()) return ToGrpc(literal.status());
  absl::StatusOr<std::unique_ptr<DeviceBuffer>> buffer = client_->TransferToDevice(*literal);
  if (!buffer.ok()) return ToGrpc(buffer.status());
  absl::StatusOr<uint64_t> handle = buffers_.Add(*std::move(buffer));
  if (!handle.ok()) return ToGrpc(handle.status());
  response->set_buffer_handle(*handle);
  return grpc::Status::OK;
}

grpc::Status CompileServiceImpl::TransferFromServer(grpc::ServerContext* context,
                                                    const TransferFromServerRequest* request,
                                                    TransferFromServerResponse* response) {
  if (absl::Status status = Authorize(*context); !status.ok()) return ToGrpc(status);
  absl::StatusOr<std::shared_ptr<DeviceBuffer>> buffer = buffers_.Get(request->buffer_handle());
  if (!buffer.ok()) return ToGrpc(buffer.status());
  absl::StatusOr<Literal> literal = (*buffer)->ToLiteral();
  if (!literal.ok()) return ToGrpc(literal.status());
  absl::StatusOr<xla::LiteralProto> proto = LiteralToProto(*literal);
  if (!proto.ok()) return ToGrpc(proto.status());
  *response->mutable_literal() = *std::move(proto);
  return grpc::Status::OK;
}

grpc::Status CompileServiceImpl::Unload(grpc::ServerContext* context, const UnloadRequest* request,
                                        UnloadResponse*) {
  if (absl::Status status = Authorize(*context); !status.ok()) return ToGrpc(status);
  if (request->handle() == 0 && request->buffer_handle() == 0) {
    return ToGrpc(absl::InvalidArgumentError("name an executable handle or a buffer handle"));
  }
  if (request->handle() != 0 && !cache_.Remove(request->handle())) {
    return ToGrpc(absl::NotFoundError(absl::StrCat("no executable with handle ", request->handle())));
  }
  if (request->buffer_handle() != 0 && !buffers_.Remove(request->buffer_handle())) {
    return ToGrpc(
        absl::NotFoundError(absl::StrCat("no buffer with handle ", request->buffer_handle())));
  }
  return grpc::Status::OK;
}

grpc::Status CompileServiceImpl::ListBackends(grpc::ServerContext* context,
                                              const ListBackendsRequest*,
                                              ListBackendsResponse* response) {
  if (absl::Status status = Authorize(*context); !status.ok()) return ToGrpc(status);
  for (const std::string& backend : LocalClient::Backends()) response->add_backends(backend);
  return grpc::Status::OK;
}

grpc::Status CompileServiceImpl::GetStats(grpc::ServerContext* context, const GetStatsRequest*,
                                          GetStatsResponse* response) {
  if (absl::Status status = Authorize(*context); !status.ok()) return ToGrpc(status);
  const ExecutableCache::Stats cache = cache_.stats();
  response->set_compile_requests(compile_requests_.load());
  response->set_cache_hits(cache_hits_.load());
  response->set_executables(cache.entries);
  response->set_executable_bytes(cache.bytes);
  response->set_evictions(cache.evictions);
  response->set_execute_requests(execute_requests_.load());
  response->set_execute_errors(execute_errors_.load());
  response->set_buffers(buffers_.count());
  response->set_buffer_bytes(buffers_.bytes());
  response->set_active_executions(execution_slots_.in_use());
  return grpc::Status::OK;
}

}  // namespace service
}  // namespace tessera
