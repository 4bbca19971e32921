// The CPU's evaluator of fused pointwise programs (kernels/fused_pointwise.h): runs a
// program block by block, each block's values kept in L1, OpenMP across blocks.
//
// Why the results equal the unfused run bit for bit: each instruction applies its
// node's eager formula (fused_pointwise_ops.cpp) to values of the node's dtype, exactly as
// the node's kernel does, and stores the result in that dtype before the next instruction
// reads it, as the eager output tensor would hold it. The block loops are compiled
// through the same per-ISA clones as the eager dense rows, so a contracted multiply-add
// (FMA) in one is one in the other. One-element operands are read once as a number in
// the compute type, as the eager kernels read them. (Eager's strided rows, which are
// not cloned, can differ from its own dense rows in the last bit; fused runs always
// take the cloned path, as eager does on contiguous data.)
#include <algorithm>
#include <array>
#include <memory>

#include "cpu/fused_pointwise_formula.h"
#include "cpu/parallel.h"
#include "ember/ops/factories.h"
#include "kernels/elementwise_setup.h"

namespace ember::cpu::fused {

using kernels::fused::FusedInstr;
using kernels::fused::OperandForm;
using kernels::fused::operand_form;
using kernels::fused::numel_of;
using kernels::fused::kArrays;
using kernels::fused::kFirstScalar;
using kernels::fused::kSecondScalar;

namespace {

// The program a run executes (kernels/fused_pointwise.h).
struct Program {
  size_t num_inputs;
  const std::vector<FusedInstr>& program;
  const std::vector<int32_t>& output_registers;
};

// Registers a run can hold (find_fusion_groups keeps groups well below: kMaxGroupNodes).
constexpr size_t kMaxRegisters = 256;

// Elements per block: one block of every live register stays in L1 (4 KiB each).
template <typename T>
constexpr int64_t kBlock = 4096 / static_cast<int64_t>(sizeof(T));

template <typename T>
struct InputOperand {
  const T* base = nullptr;  // Full and Trailing: the tensor's data
  int64_t period = 0;       // Trailing: its element count (flat index i reads base[i % period])
  OperandForm form = OperandForm::Full;
  T value{};                // Scalar: the element, converted to T as the eager kernels read it
  bool exact = true;        // Scalar: value is the element itself (no rounding to T)
};

// Everything a run needs, worked out before the loop so the loop cannot fail.
template <typename T>
struct RunState {
  std::vector<InputOperand<T>> inputs;
  std::vector<BlockFn<T>> fns;        // per instruction, for its operand layout
  std::vector<T*> out_base;           // per instruction: the output tensor's data, or null
  std::vector<int32_t> slot;          // per register: its scratch block, or -1
  int32_t num_slots = 0;
};

template <typename T>
BlockFn<T> block_fn(const PointwiseFormula& f, int layout) {
  if constexpr (std::is_same_v<T, float>) return f.f32[layout];
  else return f.f64[layout];
}

// Scratch blocks by liveness: a register's block is reused once its last reader has run
// (never as the destination of that reader itself: the block loops do not run in place).
template <typename T>
void assign_slots(const Program& group, RunState<T>& st) {
  const size_t ni = group.num_inputs, nregs = ni + group.program.size();
  std::vector<int32_t> last_use(nregs, -1);
  for (size_t k = 0; k < group.program.size(); ++k)
    for (int a = 0; a < group.program[k].formula->arity; ++a)
      last_use[static_cast<size_t>(group.program[k].args[a])] = static_cast<int32_t>(k);
  st.slot.assign(nregs, -1);
  std::vector<int32_t> free_slots;
  std::vector<char> released(nregs, 0);
  auto take = [&]() {
    if (free_slots.empty()) return st.num_slots++;
    int32_t s = free_slots.back();
    free_slots.pop_back();
    return s;
  };
  auto release = [&](size_t r) {
    if (st.slot[r] < 0 || released[r]) return;
    released[r] = 1;
    free_slots.push_back(st.slot[r]);
  };
  // Gathered inputs keep their block for the whole program.
  for (size_t i = 0; i < ni; ++i)
    if (st.inputs[i].form == OperandForm::Trailing) st.slot[i] = take();
  for (size_t k = 0; k < group.program.size(); ++k) {
    const FusedInstr& ins = group.program[k];
    const size_t r = static_cast<size_t>(ins.result);
    if (!st.out_base[k]) st.slot[r] = take();
    for (int a = 0; a < ins.formula->arity; ++a) {
      size_t arg = static_cast<size_t>(ins.args[a]);
      if (arg >= ni && last_use[arg] == static_cast<int32_t>(k)) release(arg);
    }
    if (last_use[r] < 0) release(r);  // a result nothing in the group reads
  }
}

template <typename T>
void run_blocks(const Program& group, const RunState<T>& st, int64_t begin, int64_t end, T* scratch) {
  constexpr int64_t B = kBlock<T>;
  const size_t ni = group.num_inputs;
  std::array<const T*, kMaxRegisters> reg{};  // a vector could throw inside the OpenMP region
  for (int64_t start = begin; start < end; start += B) {
    const int64_t n = std::min(B, end - start);
    for (size_t i = 0; i < ni; ++i) {
      const InputOperand<T>& in = st.inputs[i];
      if (in.form == OperandForm::Scalar) {
        reg[i] = &in.value;
      } else if (in.form == OperandForm::Full) {
        reg[i] = in.base + start;
      } else {  // Trailing: copy the block's stretch of the repeated rows
        T* dst = scratch + st.slot[i] * B;
        int64_t off = start % in.period, done = 0;
        while (done < n) {
          int64_t len = std::min(n - done, in.period - off);
          std::copy(in.base + off, in.base + off + len, dst + done);
          done += len;
          off = 0;
        }
        reg[i] = dst;
      }
    }
    for (size_t k = 0; k < group.program.size(); ++k) {
      const FusedInstr& ins = group.program[k];
      T* dst = st.out_base[k] ? st.out_base[k] + start : scratch + st.slot[static_cast<size_t>(ins.result)] * B;
      const T* a = reg[static_cast<size_t>(ins.args[0])];
      const T* b = ins.formula->arity == 2 ? reg[static_cast<size_t>(ins.args[1])] : nullptr;
      st.fns[k](dst, a, b, n, ins.params);
      reg[static_cast<size_t>(ins.result)] = dst;
    }
  }
}

template <typename T>
void run_program(const Program& group, RunState<T>& st, int64_t numel) {
  assign_slots(group, st);
  constexpr int64_t B = kBlock<T>;
  // One scratch area per thread the loop may use, allocated before it.
  const int threads = std::max(1, max_threads());
  const size_t per_thread = static_cast<size_t>(std::max<int32_t>(st.num_slots, 1) * B);
  std::unique_ptr<T[]> scratch(new T[per_thread * static_cast<size_t>(threads)]);
  T* base = scratch.get();
  parallel_for_slots(0, numel, kGrainSize, [&](int64_t b, int64_t e, int slot) {
    run_blocks(group, st, b, e, base + per_thread * static_cast<size_t>(slot));
  });
}

template <typename T>
bool prepare_and_run(const Program& group, const std::vector<const Tensor*>& ins,
                     const DimVector& shape, std::vector<Tensor>& outs) {
  RunState<T> st;
  const int64_t numel = numel_of(shape);
  st.inputs.resize(ins.size());
  for (size_t i = 0; i < ins.size(); ++i) {
    const Tensor& t = *ins[i];
    InputOperand<T>& in = st.inputs[i];
    in.form = operand_form(t.sizes(), shape);
    if (in.form == OperandForm::Scalar) {
      in.value = scalar_value<T>(t);
      in.exact = static_cast<double>(in.value) == scalar_value<double>(t);
    } else {
      if (in.form == OperandForm::Other || !t.is_contiguous()) return false;
      in.base = static_cast<const T*>(t.data_ptr());
      in.period = t.numel();
    }
  }
  const size_t ni = ins.size();
  for (const FusedInstr& k : group.program) {
    int layout = kArrays;
    bool a_scalar = static_cast<size_t>(k.args[0]) < ni && st.inputs[static_cast<size_t>(k.args[0])].form == OperandForm::Scalar;
    bool b_scalar = k.formula->arity == 2 && static_cast<size_t>(k.args[1]) < ni &&
                    st.inputs[static_cast<size_t>(k.args[1])].form == OperandForm::Scalar;
    if (k.formula->arity == 1 && a_scalar) return false;
    if (a_scalar && b_scalar) return false;
    if (k.formula->exact_scalars) {
      for (int a = 0; a < k.formula->arity; ++a) {
        size_t r = static_cast<size_t>(k.args[a]);
        if (r < ni && st.inputs[r].form == OperandForm::Scalar && !st.inputs[r].exact) return false;
      }
    }
    if (a_scalar) layout = kFirstScalar;
    if (b_scalar) layout = kSecondScalar;
    BlockFn<T> fn = block_fn<T>(*k.formula, layout);
    if (!fn) return false;
    st.fns.push_back(fn);
  }
  // The outputs: fresh contiguous tensors, as the eager kernels allocate them.
  st.out_base.assign(group.program.size(), nullptr);
  outs.clear();
  for (size_t o = 0; o < group.output_registers.size(); ++o) {
    outs.push_back(empty(shape, TensorOptions(dtype_of<T>::value)));
    size_t k = static_cast<size_t>(group.output_registers[o]) - ni;
    st.out_base[k] = static_cast<T*>(outs.back().data_ptr());
  }
  if (numel > 0) run_program(group, st, numel);
  return true;
}

// The program reads only registers defined before it and defines them in order (as
// find_fusion_groups builds it): checked so that a hand-made group cannot index out of range.
bool well_formed(const Program& group) {
  const int32_t ni = static_cast<int32_t>(group.num_inputs);
  for (size_t k = 0; k < group.program.size(); ++k) {
    const FusedInstr& ins = group.program[k];
    const int32_t defined = ni + static_cast<int32_t>(k);
    if (!ins.formula || ins.result != defined) return false;
    if (ins.formula->arity < 1 || ins.formula->arity > 2) return false;
    for (int a = 0; a < ins.formula->arity; ++a)
      if (ins.args[a] < 0 || ins.args[a] >= defined) return false;
  }
  if (group.output_registers.size() != group.output_registers.size()) return false;
  std::vector<char> seen(group.program.size(), 0);
  for (int32_t r : group.output_registers) {
    if (r < ni || r >= ni + static_cast<int32_t>(group.program.size()) || seen[static_cast<size_t>(r - ni)])
      return false;
    seen[static_cast<size_t>(r - ni)] = 1;
  }
  return true;
}

}  // namespace

// The CPU's FusedRunner (kernels/fused_pointwise.h).
bool run_program_on_cpu(const std::vector<FusedInstr>& program,
                        const std::vector<int32_t>& output_registers,
                        const std::vector<const Tensor*>& inputs, const DimVector& shape, DType dtype,
                        std::vector<Tensor>& outputs) {
  Program p{inputs.size(), program, output_registers};
  if (program.empty() || inputs.size() + program.size() > kMaxRegisters || !well_formed(p)) return false;
  return dtype == kFloat32   ? prepare_and_run<float>(p, inputs, shape, outputs)
         : dtype == kFloat64 ? prepare_and_run<double>(p, inputs, shape, outputs)
                             : false;
}

namespace {
struct RunnerRegistrar {
  RunnerRegistrar() { kernels::fused::register_fused_runner(DeviceType::CPU, &run_program_on_cpu); }
} g_registrar;
}  // namespace

}  // namespace ember::cpu::fused
