// The model evaluator (see eval.h).
#include "eval.h"

#include <algorithm>
#include <deque>
#include <map>

#include "ptx_ops.h"

namespace kdt::gen {

int64_t element_count(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

Shape broadcast_shape(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()));
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t x = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
    const int64_t y = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
    if (x != y && x != 1 && y != 1) throw ModelError("shapes do not broadcast");
    out[i] = x == 1 ? y : x;
  }
  return out;
}

bool broadcasts_to(const Shape& from, const Shape& to) {
  if (from.size() > to.size()) return false;
  for (size_t i = 1; i <= from.size(); ++i) {
    if (from[from.size() - i] != 1 && from[from.size() - i] != to[to.size() - i]) return false;
  }
  return true;
}

namespace {

struct Tile {
  DType dt = DType::I32;
  Shape shape;
  std::vector<uint64_t> v;
};

Tile scalar_tile(DType dt, uint64_t bits) { return Tile{dt, {}, {bits}}; }

std::vector<int64_t> strides_of(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
  return st;
}

// NumPy broadcasting of t to `shape`.
Tile broadcast_to(const Tile& t, const Shape& shape) {
  if (t.shape == shape) return t;
  Tile out{t.dt, shape, std::vector<uint64_t>(static_cast<size_t>(element_count(shape)))};
  const std::vector<int64_t> st = strides_of(t.shape);
  const size_t lead = shape.size() - t.shape.size();
  for (int64_t flat = 0; flat < element_count(shape); ++flat) {
    int64_t rest = flat, src = 0;
    for (size_t d = shape.size(); d-- > 0;) {
      const int64_t coord = rest % shape[d];
      rest /= shape[d];
      if (d >= lead && t.shape[d - lead] != 1) src += coord * st[d - lead];
    }
    out.v[static_cast<size_t>(flat)] = t.v[static_cast<size_t>(src)];
  }
  return out;
}

struct DimSel {
  int64_t start = 0, size = 1;
  bool dropped = false;
};

// A view resolved against one program: the ref's storage and, per
// dimension, the selected elements.
struct Place {
  std::vector<uint64_t>* data = nullptr;
  DType dt = DType::I32;
  Shape ref_shape;
  std::vector<DimSel> dims;

  Shape shape() const {
    Shape s;
    for (const DimSel& d : dims) {
      if (!d.dropped) s.push_back(d.size);
    }
    return s;
  }
  // Flat offsets of the view's elements in row-major view order; -1 where
  // an element lies outside the ref (allowed only under a mask).
  std::vector<int64_t> offsets() const {
    const std::vector<int64_t> st = strides_of(ref_shape);
    std::vector<int64_t> out{0};
    std::vector<bool> inside{true};
    for (size_t d = 0; d < dims.size(); ++d) {
      std::vector<int64_t> next;
      std::vector<bool> next_inside;
      for (size_t i = 0; i < out.size(); ++i) {
        for (int64_t k = 0; k < dims[d].size; ++k) {
          const int64_t c = dims[d].start + k;
          next.push_back(out[i] + c * st[d]);
          next_inside.push_back(inside[i] && c >= 0 && c < ref_shape[d]);
        }
      }
      out.swap(next);
      inside.swap(next_inside);
    }
    for (size_t i = 0; i < out.size(); ++i) {
      if (!inside[i]) out[i] = -1;
    }
    return out;
  }
  int64_t bytes() const { return element_count(shape()) * dtype_bytes(dt); }
};

struct DmaRecord {
  int64_t bytes;
};

struct Context {
  int device = 0;
  int64_t pid = 0;
  std::vector<int64_t> coords;
  std::vector<std::map<std::string, Tile>> scopes;
  std::map<std::string, std::vector<uint64_t>> scratch;
  std::map<std::string, std::deque<DmaRecord>> dma;
  std::map<std::string, int64_t> regular;
};

class Evaluator {
 public:
  explicit Evaluator(const Kernel& k) : k_(k) {
    mem_.resize(static_cast<size_t>(k.devices));
    for (int d = 0; d < k.devices; ++d) {
      for (const Param& p : k.params) {
        const size_t n = static_cast<size_t>(element_count(p.shape));
        std::vector<uint64_t> data(n, 0);
        if (!p.init.empty()) data.assign(p.init.begin() + static_cast<int64_t>(n) * d, p.init.begin() + static_cast<int64_t>(n) * (d + 1));
        mem_[static_cast<size_t>(d)][p.name] = std::move(data);
      }
    }
    const int64_t programs = element_count(k.grid);
    for (int d = 0; d < k.devices; ++d) {
      for (int64_t p = 0; p < programs; ++p) {
        Context c;
        c.device = d;
        c.pid = p;
        c.coords.resize(k.grid.size());
        int64_t rest = p;
        for (size_t a = k.grid.size(); a-- > 0;) {
          c.coords[a] = rest % k.grid[a];
          rest /= k.grid[a];
        }
        c.scopes.emplace_back();
        for (const Scratch& s : k.scratch) c.scratch[s.name].assign(static_cast<size_t>(element_count(s.shape)), 0);
        contexts_.push_back(std::move(c));
      }
    }
  }

  std::vector<std::vector<uint64_t>> run() {
    for (const Stmt& s : k_.body) {
      for (Context& c : contexts_) exec(s, c);
    }
    for (const Context& c : contexts_) {
      for (const auto& [name, q] : c.dma) {
        if (!q.empty()) throw ModelError("a DMA on `" + name + "` is never waited for");
      }
      for (const auto& [name, v] : c.regular) {
        if (v != 0) throw ModelError("regular semaphore `" + name + "` ends at " + std::to_string(v));
      }
    }
    std::vector<std::vector<uint64_t>> out;
    for (const Param& p : k_.params) {
      std::vector<uint64_t> all;
      for (int d = 0; d < k_.devices; ++d) {
        const auto& data = mem_[static_cast<size_t>(d)][p.name];
        all.insert(all.end(), data.begin(), data.end());
      }
      out.push_back(std::move(all));
    }
    return out;
  }

 private:
  const Param* param(const std::string& name) const {
    for (const Param& p : k_.params) {
      if (p.name == name) return &p;
    }
    return nullptr;
  }

  Context& context(int device, int64_t pid) {
    return contexts_[static_cast<size_t>(device * element_count(k_.grid) + pid)];
  }

  int64_t scalar_int(const Expr& e, Context& c) {
    Tile t = eval(e, c);
    if (!t.shape.empty()) throw ModelError("index is not a scalar");
    return as_i64(t.dt, t.v[0]);
  }

  // `device`: the device whose memory a @global ref is taken from.
  Place place(const View& v, Context& c, int device) {
    Place pl;
    if (const Param* p = param(v.ref)) {
      pl.data = &mem_[static_cast<size_t>(device)][p->name];
      pl.dt = p->dtype;
      pl.ref_shape = p->shape;
    } else {
      bool found = false;
      for (const Scratch& s : k_.scratch) {
        if (s.name == v.ref) {
          pl.data = &c.scratch[s.name];
          pl.dt = s.dtype;
          pl.ref_shape = s.shape;
          found = true;
        }
      }
      if (!found) throw ModelError("unknown ref " + v.ref);
    }
    for (size_t d = 0; d < pl.ref_shape.size(); ++d) {
      DimSel sel{0, pl.ref_shape[d], false};
      if (d < v.entries.size()) {
        const IndexEntry& e = v.entries[d];
        switch (e.kind) {
          case IndexEntry::Kind::Scalar: sel = {scalar_int(*e.index, c), 1, true}; break;
          case IndexEntry::Kind::Full: break;
          case IndexEntry::Kind::Slice: sel = {e.start, e.size, false}; break;
          case IndexEntry::Kind::Ds: sel = {scalar_int(*e.index, c), e.size, false}; break;
        }
      }
      pl.dims.push_back(sel);
    }
    return pl;
  }

  Tile load(const Place& pl) {
    Tile t{pl.dt, pl.shape(), {}};
    for (int64_t off : pl.offsets()) {
      if (off < 0) throw ModelError("load out of bounds of a ref");
      t.v.push_back((*pl.data)[static_cast<size_t>(off)]);
    }
    return t;
  }

  void store(const Place& pl, const Tile& value, const Tile* mask = nullptr) {
    const Shape shape = pl.shape();
    const Tile v = broadcast_to(value, shape);
    const std::vector<int64_t> offs = pl.offsets();
    const Tile m = mask ? broadcast_to(*mask, shape) : Tile{};
    for (size_t i = 0; i < offs.size(); ++i) {
      if (mask && !(m.v[i] & 1)) continue;
      if (offs[i] < 0) throw ModelError("store out of bounds of a ref");
      (*pl.data)[static_cast<size_t>(offs[i])] = v.v[i];
    }
  }

  std::string sem_key(const SemRef& s, Context& c) {
    return s.index ? s.name + "#" + std::to_string(scalar_int(*s.index, c)) : s.name;
  }

  Tile binary_tiles(BinOp op, const Tile& a, const Tile& b) {
    const Shape shape = broadcast_shape(a.shape, b.shape);
    const Tile x = broadcast_to(a, shape), y = broadcast_to(b, shape);
    const DType rdt = is_comparison(op) || op == BinOp::LAnd || op == BinOp::LOr ? DType::Bool : a.dt;
    Tile out{rdt, shape, std::vector<uint64_t>(x.v.size())};
    for (size_t i = 0; i < x.v.size(); ++i) {
      if (is_int(a.dt) && (op == BinOp::Div || op == BinOp::Rem) && from_int(a.dt, y.v[i]) == 0) {
        throw ModelError("integer division by zero");
      }
      out.v[i] = binary(op, a.dt, x.v[i], y.v[i]);
    }
    return out;
  }

  Tile reduce(const Expr& e, const Tile& x) {
    // f16/bf16 sums accumulate in f32; everything else in its own dtype.
    const bool narrow = x.dt == DType::F16 || x.dt == DType::BF16;
    const DType acc_t = e.name == "sum" && narrow ? DType::F32 : x.dt;
    const Shape& xs = x.shape;
    int64_t outer = 1, inner = 1, len = element_count(xs);
    if (e.axis >= 0) {
      outer = inner = 1;
      for (int d = 0; d < e.axis; ++d) outer *= xs[static_cast<size_t>(d)];
      for (size_t d = static_cast<size_t>(e.axis) + 1; d < xs.size(); ++d) inner *= xs[d];
      len = xs[static_cast<size_t>(e.axis)];
    }
    Tile out{x.dt, e.shape, std::vector<uint64_t>(static_cast<size_t>(element_count(e.shape)))};
    std::vector<uint64_t> results;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t in = 0; in < inner; ++in) {
        auto at = [&](int64_t r) { return cast(acc_t, x.dt, x.v[static_cast<size_t>(o * len * inner + r * inner + in)]); };
        const BinOp op = e.name == "sum" ? BinOp::Add : e.name == "max" ? BinOp::Max : BinOp::Min;
        // kdt's order (docs/interpretation.md): element r goes to lane
        // r % 32, each lane combines its elements in order (a sum's lanes
        // start from +0), then lane[l] op= lane[l + h] for h = 16 .. 1.
        // Max and min give the same in any order.
        const int64_t lanes = std::min<int64_t>(len, 32);
        std::vector<uint64_t> lane(static_cast<size_t>(lanes));
        for (int64_t r = 0; r < len; ++r) {
          uint64_t& l = lane[static_cast<size_t>(r % 32)];
          l = r < 32 ? (op == BinOp::Add ? binary(op, acc_t, 0, at(r)) : at(r)) : binary(op, acc_t, l, at(r));
        }
        for (int64_t h = 16; h > 0; h /= 2) {
          for (int64_t l = 0; l < h && l + h < lanes; ++l) {
            lane[static_cast<size_t>(l)] = binary(op, acc_t, lane[static_cast<size_t>(l)], lane[static_cast<size_t>(l + h)]);
          }
        }
        results.push_back(cast(x.dt, acc_t, lane[0]));
      }
    }
    if (e.axis < 0) {
      for (uint64_t& v : out.v) v = results[0];
    } else {
      out.v = results;
    }
    return out;
  }

  Tile dot(const Tile& a, const Tile& b) {
    // Floats accumulate in f32, integers in i32 (inputs converted first),
    // k increasing for every output element.
    const DType acc = is_float(a.dt) ? DType::F32 : DType::I32;
    const int64_t M = a.shape[0], K = a.shape[1], N = b.shape[1];
    Tile out{acc, {M, N}, std::vector<uint64_t>(static_cast<size_t>(M * N), 0)};
    for (int64_t i = 0; i < M; ++i) {
      for (int64_t j = 0; j < N; ++j) {
        uint64_t c = 0;
        for (int64_t kk = 0; kk < K; ++kk) {
          const uint64_t x = cast(acc, a.dt, a.v[static_cast<size_t>(i * K + kk)]);
          const uint64_t y = cast(acc, b.dt, b.v[static_cast<size_t>(kk * N + j)]);
          c = binary(BinOp::Add, acc, c, binary(BinOp::Mul, acc, x, y));
        }
        out.v[static_cast<size_t>(i * N + j)] = c;
      }
    }
    return out;
  }

  Tile eval(const Expr& e, Context& c);
  void exec(const Stmt& s, Context& c);
  void exec_block(const Block& b, Context& c) {
    c.scopes.emplace_back();
    for (const Stmt& s : b) exec(s, c);
    c.scopes.pop_back();
  }
  Tile* lookup(const std::string& name, Context& c) {
    for (size_t i = c.scopes.size(); i-- > 0;) {
      auto it = c.scopes[i].find(name);
      if (it != c.scopes[i].end()) return &it->second;
    }
    throw ModelError("unknown name " + name);
  }

  const Kernel& k_;
  std::vector<std::map<std::string, std::vector<uint64_t>>> mem_;
  std::vector<Context> contexts_;
};

Tile Evaluator::eval(const Expr& e, Context& c) {
  using K = Expr::Kind;
  switch (e.kind) {
    case K::Literal: return scalar_tile(e.dtype, e.bits);
    case K::Name: return *lookup(e.name, c);
    case K::Load: return load(place(e.view, c, c.device));
    case K::MaskedLoad: {
      const Place pl = place(e.view, c, c.device);
      const Shape shape = pl.shape();
      const Tile m = broadcast_to(eval(*e.operands[0], c), shape);
      const Tile other = eval(*e.operands[1], c);
      Tile out{pl.dt, shape, {}};
      const std::vector<int64_t> offs = pl.offsets();
      for (size_t i = 0; i < offs.size(); ++i) {
        if (!(m.v[i] & 1)) {
          out.v.push_back(other.v[0]);
          continue;
        }
        if (offs[i] < 0) throw ModelError("masked-on load out of bounds");
        out.v.push_back((*pl.data)[static_cast<size_t>(offs[i])]);
      }
      return out;
    }
    case K::ProgramId: return scalar_tile(DType::I32, static_cast<uint64_t>(c.coords[static_cast<size_t>(e.axis)]));
    case K::NumPrograms: return scalar_tile(DType::I32, static_cast<uint64_t>(k_.grid[static_cast<size_t>(e.axis)]));
    case K::DeviceId: return scalar_tile(DType::I32, static_cast<uint64_t>(c.device));
    case K::NumDevices: return scalar_tile(DType::I32, static_cast<uint64_t>(k_.devices));
    case K::SemRead: return scalar_tile(DType::I32, from_int(DType::I32, static_cast<uint64_t>(c.regular[e.name])));
    case K::Unary: {
      Tile t = eval(*e.operands[0], c);
      for (uint64_t& v : t.v) v = unary(e.unop, t.dt, v);
      return t;
    }
    case K::Binary: return binary_tiles(e.binop, eval(*e.operands[0], c), eval(*e.operands[1], c));
    case K::Where: {
      const Tile cond = eval(*e.operands[0], c), a = eval(*e.operands[1], c), b = eval(*e.operands[2], c);
      const Shape shape = broadcast_shape(cond.shape, broadcast_shape(a.shape, b.shape));
      const Tile m = broadcast_to(cond, shape), x = broadcast_to(a, shape), y = broadcast_to(b, shape);
      Tile out{a.dt, shape, std::vector<uint64_t>(x.v.size())};
      for (size_t i = 0; i < x.v.size(); ++i) out.v[i] = m.v[i] & 1 ? x.v[i] : y.v[i];
      return out;
    }
    case K::Cast: {
      Tile t = eval(*e.operands[0], c);
      for (uint64_t& v : t.v) v = cast(e.dtype, t.dt, v);
      t.dt = e.dtype;
      return t;
    }
    case K::Iota: {
      Tile t{e.dtype, e.shape, {}};
      const std::vector<int64_t> st = strides_of(e.shape);
      for (int64_t flat = 0; flat < element_count(e.shape); ++flat) {
        const int64_t coord = flat / st[static_cast<size_t>(e.axis)] % e.shape[static_cast<size_t>(e.axis)];
        t.v.push_back(cast(e.dtype, DType::I64, static_cast<uint64_t>(coord)));
      }
      return t;
    }
    case K::Full: {
      uint64_t bits = 0;
      if (e.name == "ones") bits = cast(e.dtype, DType::I32, 1);
      if (e.name == "full") bits = eval(*e.operands[0], c).v[0];
      return Tile{e.dtype, e.shape, std::vector<uint64_t>(static_cast<size_t>(element_count(e.shape)), bits)};
    }
    case K::Reduce: return reduce(e, eval(*e.operands[0], c));
    case K::Dot: return dot(eval(*e.operands[0], c), eval(*e.operands[1], c));
    case K::Transpose: {
      const Tile x = eval(*e.operands[0], c);
      const int64_t R = x.shape[0], C = x.shape[1];
      Tile out{x.dt, {C, R}, std::vector<uint64_t>(x.v.size())};
      for (int64_t r = 0; r < R; ++r) {
        for (int64_t col = 0; col < C; ++col) out.v[static_cast<size_t>(col * R + r)] = x.v[static_cast<size_t>(r * C + col)];
      }
      return out;
    }
    case K::Reshape: {
      Tile x = eval(*e.operands[0], c);
      x.shape = e.shape;
      return x;
    }
    case K::Broadcast: return broadcast_to(eval(*e.operands[0], c), e.shape);
    case K::TileSlice: {
      const Tile x = eval(*e.operands[0], c);
      const int64_t row = element_count(x.shape) / x.shape[0];
      Tile out{x.dt, e.shape, {}};
      out.v.assign(x.v.begin() + e.start * row, x.v.begin() + (e.start + e.size) * row);
      return out;
    }
    case K::Asm: {
      std::vector<Tile> in;
      Shape shape;
      for (const ExprPtr& op : e.operands) {
        in.push_back(eval(*op, c));
        shape = broadcast_shape(shape, in.back().shape);
      }
      for (Tile& t : in) t = broadcast_to(t, shape);
      if (e.asm_fallback) {
        // The fallback's operations are element-wise: run it on whole tiles.
        c.scopes.emplace_back();
        for (size_t i = 0; i < in.size(); ++i) c.scopes.back()[e.asm_inputs[i]] = in[i];
        Tile out = broadcast_to(eval(*e.asm_fallback, c), shape);
        c.scopes.pop_back();
        return out;
      }
      Tile out{e.dtype, shape, std::vector<uint64_t>(static_cast<size_t>(element_count(shape)))};
      std::vector<uint64_t> args(in.size());
      for (size_t i = 0; i < out.v.size(); ++i) {
        for (size_t a = 0; a < in.size(); ++a) args[a] = in[a].v[i];
        out.v[i] = ptx_apply(e.ptx_op, args);
      }
      return out;
    }
  }
  throw ModelError("unknown expression");
}

void Evaluator::exec(const Stmt& s, Context& c) {
  using K = Stmt::Kind;
  switch (s.kind) {
    case K::Let:
    case K::Var: c.scopes.back()[s.name] = eval(*s.expr, c); return;
    case K::Assign: {
      Tile* target = lookup(s.name, c);
      Tile value = eval(*s.expr, c);
      if (s.compound) value = binary_tiles(s.op, *target, value);
      *target = broadcast_to(value, target->shape);
      return;
    }
    case K::Store: {
      const Place pl = place(s.view, c, c.device);
      Tile value = eval(*s.expr, c);
      if (s.compound) value = binary_tiles(s.op, load(pl), value);
      store(pl, value);
      return;
    }
    case K::MaskedStore: {
      const Place pl = place(s.view, c, c.device);
      const Tile value = eval(*s.expr, c);
      const Tile mask = eval(*s.mask, c);
      store(pl, value, &mask);
      return;
    }
    case K::DmaStart: {
      const Place src = place(s.view, c, c.device);
      const int target = s.device ? static_cast<int>(scalar_int(*s.device, c)) : c.device;
      // The destination's indices are evaluated by the sender.
      const Place dst = place(s.dst, c, target);
      if (src.shape() != dst.shape()) throw ModelError("DMA shapes differ");
      Tile data = load(src);
      if (s.add) data = binary_tiles(BinOp::Add, load(dst), data);
      store(dst, data);
      Context& receiver = context(target, c.pid);
      receiver.dma[sem_key(s.sem, c)].push_back({src.bytes()});
      if (s.device) c.dma[sem_key(s.src_sem, c)].push_back({src.bytes()});
      return;
    }
    case K::DmaWait: {
      auto& q = c.dma[sem_key(s.sem, c)];
      if (q.empty()) throw ModelError("dma_wait with no DMA in flight (the model runs in lockstep)");
      const int64_t bytes = place(s.view, c, c.device).bytes();
      if (q.front().bytes != bytes) throw ModelError("dma_wait byte count differs from the DMA it retires");
      q.pop_front();
      return;
    }
    case K::SemSignal: {
      const int64_t amount = s.expr ? scalar_int(*s.expr, c) : 1;
      const int target = s.device ? static_cast<int>(scalar_int(*s.device, c)) : c.device;
      context(target, c.pid).regular[sem_key(s.sem, c)] += amount;
      return;
    }
    case K::SemWait: {
      const int64_t amount = s.expr ? scalar_int(*s.expr, c) : 1;
      int64_t& v = c.regular[sem_key(s.sem, c)];
      if (v < amount) throw ModelError("sem_wait would block (the model runs in lockstep)");
      v -= amount;
      return;
    }
    case K::For: {
      const int64_t lo = scalar_int(*s.expr, c), hi = scalar_int(*s.hi, c);
      for (int64_t i = lo; i < hi; i += s.step) {
        c.scopes.emplace_back();
        c.scopes.back()[s.name] = scalar_tile(DType::I32, from_int(DType::I32, static_cast<uint64_t>(i)));
        exec_block(s.body, c);
        c.scopes.pop_back();
      }
      return;
    }
    case K::If: {
      const Tile cond = eval(*s.expr, c);
      exec_block(cond.v[0] & 1 ? s.body : s.else_body, c);
      return;
    }
    case K::Assert:
      if (!(eval(*s.expr, c).v[0] & 1)) throw ModelError("assert failed in the model");
      return;
    case K::Comment: return;
  }
}

}  // namespace

std::vector<std::vector<uint64_t>> evaluate(const Kernel& k) { return Evaluator(k).run(); }

}  // namespace kdt::gen
