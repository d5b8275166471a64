// OneDnnConvolution; see onednn_conv.h.
#include "backends/cpu/onednn_conv.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "backends/cpu/conv_thunk.h"
#include "backends/cpu/onednn_gemm.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "runtime/thread_pool.h"

namespace tessera {
namespace cpu {

namespace {

using dnnl::memory;

// What a chunk's primitive depends on besides the plan: its batch entries,
// the input rows it reads and the padding above and below them.
struct Geometry {
  int64_t batch = 0, in_rows = 0, pad_top = 0, pad_bottom = 0, out_rows = 0;
  bool operator==(const Geometry& o) const {
    return std::tie(batch, in_rows, pad_top, pad_bottom, out_rows) ==
           std::tie(o.batch, o.in_rows, o.pad_top, o.pad_bottom, o.out_rows);
  }
  template <typename H>
  friend H AbslHashValue(H h, const Geometry& g) {
    return H::combine(std::move(h), g.batch, g.in_rows, g.pad_top, g.pad_bottom, g.out_rows);
  }
};

// A part of the output: batch entries [n0, n0 + g.batch), output rows
// [oh0, oh0 + g.out_rows), reading input rows from in_row0.
struct Chunk {
  int64_t n0 = 0, oh0 = 0, in_row0 = 0;
  Geometry geometry;
};

}  // namespace

struct OneDnnConvolution::Impl {
  // The plan's 2-D convolution: sizes, window, and element strides of
  // (n, c, h, w), (o, i, h, w) and (n, o, h, w).
  int64_t n = 0, c = 0, o = 0, h = 0, w = 0, oh = 0, ow = 0, kh = 0, kw = 0;
  int64_t groups = 1;  // feature groups (a depthwise convolution: c of them)
  int64_t sh = 1, sw = 1, dh = 1, dw = 1, pad_top = 0, pad_left = 0;
  int64_t in_cols = 0, pad_right = 0;  // columns read; right padding (>= 0)
  memory::dims in_strides, k_strides, out_strides;
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};

  // A chunk geometry's primitive and the weights layout it chose (chunks
  // of one run usually share it; each distinct one is reordered once).
  struct Primitive {
    dnnl::convolution_forward convolution;
    memory::desc weights;
    memory::desc scratchpad;  // the caller's (chunks of one geometry run at once)
    bool reference = false;   // oneDNN's reference loops: slower than im2col
  };
  absl::Mutex mu;
  absl::flat_hash_map<Geometry, Primitive> primitives ABSL_GUARDED_BY(mu);

  // The chunk covering output rows [oh0, oh1) of batch entries [n0, n0 + batch).
  Chunk MakeChunk(int64_t n0, int64_t batch, int64_t oh0, int64_t oh1) const {
    Chunk chunk;
    chunk.n0 = n0;
    chunk.oh0 = oh0;
    const int64_t first = oh0 * sh - pad_top;                           // may be < 0 (padding)
    const int64_t last = (oh1 - 1) * sh - pad_top + (kh - 1) * dh + 1;  // one past
    chunk.in_row0 = std::max<int64_t>(first, 0);
    chunk.geometry =
        Geometry{batch, std::min(last, h) - chunk.in_row0, std::max<int64_t>(0, -first),
                 std::max<int64_t>(0, last - h), oh1 - oh0};
    return chunk;
  }

  // Batch entries over the threads, or each entry's output rows when the
  // batch is smaller than the pool.
  std::vector<Chunk> MakeChunks(int threads) const {
    std::vector<Chunk> chunks;
    if (n >= threads || oh < 2 * threads) {
      const int64_t parts = std::min<int64_t>(n, threads);
      for (int64_t p = 0; p < parts; ++p) {
        const int64_t n0 = n * p / parts, n1 = n * (p + 1) / parts;
        chunks.push_back(MakeChunk(n0, n1 - n0, 0, oh));
      }
      return chunks;
    }
    const int64_t parts = (threads + n - 1) / n;
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t p = 0; p < parts; ++p) {
        chunks.push_back(MakeChunk(b, 1, oh * p / parts, oh * (p + 1) / parts));
      }
    }
    return chunks;
  }

  // A (batch, features, rows, columns) array at `strides`.  oneDNN's fast
  // kernels take only exactly dense plain layouts; a chunk of one batch
  // entry never steps along the batch, so its batch stride is set to what
  // makes such a chunk dense.
  static memory::desc Desc(const memory::dims& dims, memory::dims strides) {
    if (dims[0] == 1) {
      strides[0] = 1;
      for (int d = 1; d < 4; ++d) strides[0] = std::max(strides[0], strides[d] * dims[d]);
    }
    return memory::desc(dims, memory::data_type::f32, strides);
  }
  memory::desc InputDesc(const Geometry& g) const {
    return Desc({g.batch, c, g.in_rows, in_cols}, in_strides);
  }
  memory::desc OutputDesc(const Geometry& g) const {
    return Desc({g.batch, o, g.out_rows, ow}, out_strides);
  }
  // The weights as oneDNN takes them: (o, c, kh, kw), or with groups
  // (groups, o / groups, c / groups, kh, kw); output feature o is
  // group o / (o / groups)'s, as in XLA.
  memory::dims WeightDims() const {
    if (groups == 1) return {o, c, kh, kw};
    return {groups, o / groups, c / groups, kh, kw};
  }
  memory::desc UserWeightsDesc() const {
    if (groups == 1) return memory::desc(WeightDims(), memory::data_type::f32, k_strides);
    return memory::desc(
        WeightDims(), memory::data_type::f32,
        {k_strides[0] * (o / groups), k_strides[0], k_strides[1], k_strides[2], k_strides[3]});
  }

  // The primitive for `g`, created on first use (oneDNN picks the weights
  // layout its kernel wants).
  Primitive Get(const Geometry& g) ABSL_LOCKS_EXCLUDED(mu) {
    absl::MutexLock lock(&mu);
    auto it = primitives.find(g);
    if (it != primitives.end()) return it->second;
    // A primitive's own scratchpad would be shared by the chunks that run
    // it at once: each execution brings its own instead.
    dnnl::primitive_attr attributes;
    attributes.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::convolution_forward::primitive_desc pd(
        dnnl::convolution_forward::desc(
            dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, InputDesc(g),
            memory::desc(WeightDims(), memory::data_type::f32, memory::format_tag::any),
            OutputDesc(g), {sh, sw}, {dh - 1, dw - 1}, {g.pad_top, pad_left},
            {g.pad_bottom, pad_right}),
        attributes, engine);
    Primitive primitive{dnnl::convolution_forward(pd), pd.weights_desc(), pd.scratchpad_desc(),
                        absl::StartsWith(pd.impl_info_str(), "ref")};
    primitives.emplace(g, primitive);
    return primitive;
  }
};

OneDnnConvolution::OneDnnConvolution(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
OneDnnConvolution::~OneDnnConvolution() = default;

std::shared_ptr<const OneDnnConvolution> OneDnnConvolution::Create(const ConvPlan& p) {
  if (p.type != F32 || p.spatial() != 2 || p.batch_groups != 1) return nullptr;
  for (int i = 0; i < 2; ++i) {
    if (p.lhs_dilation[i] != 1 || p.reversal[i] || p.pad[i] < 0) return nullptr;
  }
  auto impl = std::make_unique<Impl>();
  Impl& m = *impl;
  m.n = p.batch;
  m.c = p.in_features;
  m.o = p.out_features;
  m.groups = p.feature_groups;
  m.h = p.in_size[0];
  m.w = p.in_size[1];
  m.oh = p.out_size[0];
  m.ow = p.out_size[1];
  m.kh = p.kernel_size[0];
  m.kw = p.kernel_size[1];
  m.sh = p.stride[0];
  m.sw = p.stride[1];
  m.dh = p.dilation[0];
  m.dw = p.dilation[1];
  m.pad_top = p.pad[0];
  m.pad_left = p.pad[1];
  if (m.n == 0 || m.c == 0 || m.o == 0 || m.oh == 0 || m.ow == 0) return nullptr;
  // Columns past the last window are not read (a stride that does not
  // divide): oneDNN sees the input narrowed to them, with no right padding.
  const int64_t right = (m.ow - 1) * m.sw - m.pad_left + (m.kw - 1) * m.dw + 1;
  m.in_cols = std::min(right, m.w);
  m.pad_right = std::max<int64_t>(0, right - m.w);
  m.in_strides = {p.in_stride_n, p.in_stride_c, p.in_stride_s[0], p.in_stride_s[1]};
  m.k_strides = {p.k_stride_o, p.k_stride_i, p.k_stride_s[0], p.k_stride_s[1]};
  m.out_strides = {p.out_stride_n, p.out_stride_o, p.out_stride_s[0], p.out_stride_s[1]};
  if (m.in_cols <= 0) return nullptr;
  // The primitives for the default pool now: a convolution that oneDNN
  // refuses, or runs only with its reference loops (an NCHW result, say),
  // stays on im2col.
  try {
    for (int threads : {1, runtime::ThreadPool::Default().parallelism()}) {
      for (const Chunk& chunk : m.MakeChunks(threads)) {
        if (chunk.geometry.in_rows <= 0 || m.Get(chunk.geometry).reference) return nullptr;
      }
    }
  } catch (const dnnl::error&) {
    return nullptr;
  }
  return std::shared_ptr<const OneDnnConvolution>(new OneDnnConvolution(std::move(impl)));
}

absl::Status OneDnnConvolution::Run(const void* input, const void* kernel, void* output,
                                    runtime::ThreadPool* pool, const RowEpilogue* epilogue) const {
  Impl& m = *impl_;
  const int threads = pool == nullptr ? 1 : pool->parallelism();
  std::vector<Chunk> chunks = m.MakeChunks(threads);
  for (const Chunk& chunk : chunks) {
    if (chunk.geometry.in_rows <= 0) {
      chunks = m.MakeChunks(1);  // row chunks that read only padding
      break;
    }
  }
  try {
    std::vector<Impl::Primitive> primitives;
    for (const Chunk& chunk : chunks) primitives.push_back(m.Get(chunk.geometry));
    const OneOpenMpThread one_thread;  // (onednn_gemm.h)
    // The weights in each primitive's layout: reordered once per run and
    // layout (they are an argument, and may change between runs), into
    // this thread's scratch, unless already in that layout.
    const memory::desc user_desc = m.UserWeightsDesc();
    memory user(user_desc, m.engine, const_cast<void*>(kernel));
    std::vector<memory> weights(chunks.size());
    std::vector<size_t> offsets;
    size_t scratch_bytes = 0;
    for (size_t i = 0; i < chunks.size(); ++i) {
      size_t same = i;
      for (size_t j = 0; j < i; ++j) {
        if (primitives[j].weights == primitives[i].weights) {
          same = j;
          break;
        }
      }
      offsets.push_back(same < i ? offsets[same] : scratch_bytes);
      if (same == i && primitives[i].weights != user_desc) {
        scratch_bytes += (primitives[i].weights.get_size() + 63) / 64 * 64;
      }
    }
    thread_local std::vector<char> scratch;
    if (scratch.size() < scratch_bytes) scratch.resize(scratch_bytes);
    dnnl::stream stream(m.engine);
    for (size_t i = 0; i < chunks.size(); ++i) {
      if (primitives[i].weights == user_desc) {
        weights[i] = user;
        continue;
      }
      weights[i] = memory(primitives[i].weights, m.engine, scratch.data() + offsets[i]);
      bool reordered = false;
      for (size_t j = 0; j < i; ++j)
        reordered |= offsets[j] == offsets[i] && weights[j] &&
                     primitives[j].weights == primitives[i].weights;
      if (!reordered) dnnl::reorder(user, weights[i]).execute(stream, user, weights[i]);
    }
    stream.wait();
    // Errors on the pool's threads, kept (an exception must not leave them).
    std::vector<std::string> errors(chunks.size());
    auto execute_chunk = [&](int64_t i) {
      const OneOpenMpThread one_thread;
      const Chunk& chunk = chunks[i];
      const float* in = static_cast<const float*>(input) + chunk.n0 * m.in_strides[0] +
                        chunk.in_row0 * m.in_strides[2];
      float* out =
          static_cast<float*>(output) + chunk.n0 * m.out_strides[0] + chunk.oh0 * m.out_strides[2];
      memory src(m.InputDesc(chunk.geometry), m.engine, const_cast<float*>(in));
      memory dst(m.OutputDesc(chunk.geometry), m.engine, out);
      thread_local std::vector<char> scratchpad_bytes;
      const memory::desc& scratchpad_desc = primitives[i].scratchpad;
      if (scratchpad_bytes.size() < scratchpad_desc.get_size()) {
        scratchpad_bytes.resize(scratchpad_desc.get_size());
      }
      memory scratchpad(scratchpad_desc, m.engine, scratchpad_bytes.data());
      dnnl::stream stream(m.engine);
      primitives[i].convolution.execute(stream, {{DNNL_ARG_SRC, src},
                                                 {DNNL_ARG_WEIGHTS, weights[i]},
                                                 {DNNL_ARG_DST, dst},
                                                 {DNNL_ARG_SCRATCHPAD, scratchpad}});
      stream.wait();
    };
    // Batch chunks hold whole entries: their epilogue runs right after.
    const bool epilogue_per_chunk = epilogue != nullptr && chunks[0].geometry.out_rows == m.oh;
    auto run_chunk = [&](int64_t i) {
      try {
        execute_chunk(i);
      } catch (const dnnl::error& error) {
        errors[i] = error.what();
        return;
      }
      if (epilogue_per_chunk) {
        (*epilogue)(chunks[i].n0, chunks[i].n0 + chunks[i].geometry.batch);
      }
    };
    if (pool == nullptr || chunks.size() == 1) {
      for (size_t i = 0; i < chunks.size(); ++i) run_chunk(static_cast<int64_t>(i));
    } else {
      pool->ParallelFor(static_cast<int64_t>(chunks.size()), 1, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) run_chunk(i);
      });
    }
    for (const std::string& error : errors) {
      if (!error.empty()) return absl::InternalError(absl::StrCat("oneDNN convolution: ", error));
    }
    if (epilogue != nullptr && !epilogue_per_chunk) RunEpilogueOverBatch(*epilogue, m.n, pool);
  } catch (const dnnl::error& error) {
    return absl::InternalError(absl::StrCat("oneDNN convolution: ", error.what()));
  }
  return absl::OkStatus();
}

}  // namespace cpu
}  // namespace tessera
