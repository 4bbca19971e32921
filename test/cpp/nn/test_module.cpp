// ember::nn::Module: registration, traversal, holders, modes, conversion,
// state dicts, printing and saving.
#include <cstdio>
#include <sstream>
#include <string>

#include "nn_test_utils.h"

using namespace ember;
using nn_test::values;

namespace {

// The libtorch pattern: an Impl with registered submodules, behind a holder.
struct NetImpl : nn::Module {
  NetImpl() {
    fc1 = register_module("fc1", nn::Linear(4, 3));
    bn = register_module("bn", nn::BatchNorm1d(3));
    fc2 = register_module("fc2", nn::Linear(nn::LinearOptions(3, 2).bias(false)));
    scale = register_parameter("scale", ones({1}));
    steps = register_buffer("steps", zeros({1}, kInt64));
  }
  Tensor forward(const Tensor& x) { return fc2(relu(bn(fc1(x)))) * scale; }
  nn::Linear fc1{nullptr};
  nn::BatchNorm1d bn{nullptr};
  nn::Linear fc2{nullptr};
  Tensor scale, steps;
};
EMBER_MODULE(Net);

// A module that is not a holder's: a plain struct, as torch allows too.
struct Plain : nn::Module {
  Plain() { w = register_parameter("w", zeros({2})); }
  Tensor w;
};

std::string printed(const nn::Module& m) {
  std::ostringstream os;
  os << m;
  return os.str();
}

std::string temp_path(const char* name) { return std::string("/tmp/ember_nn_test_") + name + ".safetensors"; }

}  // namespace

TEST_CASE("Module: parameters, buffers and children in registration order with dotted names", "[nn]") {
  Net net;
  CHECK(net->named_parameters().keys() ==
        std::vector<std::string>{"scale", "fc1.weight", "fc1.bias", "bn.weight", "bn.bias", "fc2.weight"});
  CHECK(net->named_parameters(false).keys() == std::vector<std::string>{"scale"});
  CHECK(net->parameters().size() == 6);
  CHECK(net->parameters()[1].is_same(net->fc1->weight));
  CHECK(net->named_buffers().keys() ==
        std::vector<std::string>{"steps", "bn.running_mean", "bn.running_var", "bn.num_batches_tracked"});
  CHECK(net->named_children().keys() == std::vector<std::string>{"fc1", "bn", "fc2"});
  CHECK(net->children()[0].get() == net->fc1.get());
  CHECK(net->named_modules().keys() == std::vector<std::string>{"", "fc1", "bn", "fc2"});
  CHECK(net->named_modules("net", false).keys() == std::vector<std::string>{"net.fc1", "net.bn", "net.fc2"});
  CHECK(net->modules().size() == 4);
  CHECK(net->modules(false).size() == 3);
  // Every parameter requires grad; the absent bias is skipped.
  for (const Tensor& p : net->parameters()) CHECK(p.requires_grad());
  CHECK_FALSE(net->fc2->bias.defined());
  CHECK(net->name() == "Net");
}

TEST_CASE("Module: register_* return the registered handle and reject bad names", "[nn]") {
  Plain p;
  CHECK(p.named_parameters()["w"].is_same(p.w));
  CHECK_THROWS_AS(p.register_parameter("w", zeros({1})), ValueError);
  CHECK_THROWS_AS(p.register_buffer("w", zeros({1})), ValueError);
  CHECK_THROWS_AS(p.register_parameter("a.b", zeros({1})), ValueError);
  CHECK_THROWS_AS(p.register_parameter("", zeros({1})), ValueError);
  Tensor& b = p.register_buffer("b", ones({2}));
  CHECK_FALSE(b.requires_grad());
  Tensor& frozen = p.register_parameter("frozen", ones({2}), false);
  CHECK_FALSE(frozen.requires_grad());
  CHECK_THROWS_AS(p.named_parameters()["nope"], IndexError);
  // A plain (not shared_ptr-owned) module can list its children but not itself.
  CHECK_THROWS_AS(p.named_modules(), Error);
  CHECK(p.named_modules("", false).size() == 0);
}

TEST_CASE("ModuleHolder: forward through () and ->, empty holders, shared ownership", "[nn]") {
  manual_seed(0);
  nn::Linear fc(3, 2);
  Tensor x = randn({5, 3});
  CHECK(values(fc(x)) == values(fc->forward(x)));
  nn::Linear copy = fc;  // shares the module
  CHECK(copy.get() == fc.get());
  nn::Linear empty{nullptr};
  CHECK(empty.is_empty());
  CHECK_FALSE(static_cast<bool>(empty));
  CHECK_THROWS_AS(empty->forward(x), Error);
  empty = std::make_shared<nn::LinearImpl>(3, 1);
  CHECK(empty(x).sizes() == DimVector{5, 1});
  Net net;
  auto replaced = net->replace_module("fc2", nn::Linear(3, 2));
  CHECK(net->named_children()["fc2"].get() == replaced.get());
}

TEST_CASE("Module: train and eval reach every submodule", "[nn]") {
  Net net;
  CHECK(net->is_training());
  net->eval();
  CHECK_FALSE(net->is_training());
  CHECK_FALSE(net->bn->is_training());
  net->train();
  CHECK(net->fc1->is_training());
}

TEST_CASE("Module: to(dtype) converts floating-point tensors in place; handles stay valid", "[nn]") {
  Net net;
  Tensor w = net->fc1->weight;
  std::vector<double> before = values(w);
  net->to(kFloat64);
  CHECK(w.dtype() == kFloat64);
  CHECK(net->fc1->weight.dtype() == kFloat64);
  CHECK(net->named_parameters()["fc1.weight"].is_same(w));
  CHECK(values(w) == before);
  CHECK(net->bn->running_mean.dtype() == kFloat64);
  CHECK(net->bn->num_batches_tracked.dtype() == kInt64);  // integers keep their dtype
  CHECK(w.requires_grad());
  CHECK(w.is_leaf());
  // Forward and backward run in the new dtype.
  Tensor x = randn({4, 4}, kFloat64);
  net(x).sum().backward();
  CHECK(w.grad().dtype() == kFloat64);
  net->to(kFloat32);  // the gradient is converted too
  CHECK(w.grad().dtype() == kFloat32);
  net->to(Device(kCPU));
  CHECK(w.device().is_cpu());
}

TEST_CASE("Module: zero_grad drops or zeroes the gradients; apply visits every module", "[nn]") {
  Net net;
  net(randn({4, 4})).sum().backward();
  for (const Tensor& p : net->parameters()) REQUIRE(p.grad().defined());
  net->zero_grad(false);
  for (const Tensor& p : net->parameters()) {
    REQUIRE(p.grad().defined());
    CHECK(p.grad().abs().sum().item<double>() == 0);
  }
  net->zero_grad();
  for (const Tensor& p : net->parameters()) CHECK_FALSE(p.grad().defined());

  std::vector<std::string> names;
  net->apply([&](const std::string& name, nn::Module& m) { names.push_back(name + ":" + m.name()); });
  CHECK(names == std::vector<std::string>{":Net", "fc1:Linear", "bn:BatchNorm1d", "fc2:Linear"});
  int count = 0;
  net->apply([&](nn::Module&) { ++count; });
  CHECK(count == 4);
}

TEST_CASE("Module: state_dict keys, values and load_state_dict", "[nn]") {
  manual_seed(1);
  Net a, b;
  auto sd = a->state_dict();
  CHECK(sd.keys() == std::vector<std::string>{"scale", "steps", "fc1.weight", "fc1.bias", "bn.weight", "bn.bias",
                                              "bn.running_mean", "bn.running_var", "bn.num_batches_tracked",
                                              "fc2.weight"});
  CHECK_FALSE(sd["fc1.weight"].requires_grad());  // detached aliases
  std::map<std::string, Tensor> m;
  for (const auto& item : sd) m[item.key()] = item.value().clone();
  b->load_state_dict(m);
  for (const auto& item : b->state_dict()) CHECK(values(item.value()) == values(m[item.key()]));
  CHECK(b->fc1->weight.requires_grad());
}

TEST_CASE("Module: load_state_dict's strict errors name the keys, as PyTorch's", "[nn]") {
  Net net;
  std::map<std::string, Tensor> m;
  for (const auto& item : net->state_dict()) m[item.key()] = item.value().clone();
  SECTION("missing and unexpected keys") {
    m.erase("fc1.bias");
    m.erase("bn.running_var");
    m["extra"] = zeros({1});
    try {
      net->load_state_dict(m);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(std::string(e.what()) ==
            "Error(s) in loading state_dict for Net:\n"
            "\tMissing key(s) in state_dict: \"fc1.bias\", \"bn.running_var\". \n"
            "\tUnexpected key(s) in state_dict: \"extra\". ");
    }
    Tensor before = net->fc1->weight.detach().clone();
    m["fc1.weight"] = zeros({3, 4});
    net->load_state_dict(m, false);  // not strict: the rest loads
    CHECK(net->fc1->weight.abs().sum().item<double>() == 0);
  }
  SECTION("a shape mismatch raises even when not strict") {
    m["fc1.weight"] = zeros({4, 4});
    try {
      net->load_state_dict(m, false);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(std::string(e.what()) ==
            "Error(s) in loading state_dict for Net:\n"
            "\tsize mismatch for fc1.weight: copying a param with shape [4, 4] from checkpoint, the shape in "
            "current model is [3, 4].");
    }
  }
}

TEST_CASE("Module printing: Python's repr layout, nested", "[nn]") {
  Net net;
  CHECK(printed(*net) ==
        "Net(\n"
        "  (fc1): Linear(in_features=4, out_features=3, bias=true)\n"
        "  (bn): BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=true, track_running_stats=true)\n"
        "  (fc2): Linear(in_features=3, out_features=2, bias=false)\n"
        ")");
  nn::Sequential seq(nn::Conv2d(nn::Conv2dOptions(1, 16, 3).padding(1)), nn::ReLU(), nn::MaxPool2d(2),
                     nn::Flatten(), nn::Dropout(0.25), nn::Linear(784, 10));
  std::ostringstream os;
  os << seq;
  CHECK(os.str() ==
        "Sequential(\n"
        "  (0): Conv2d(1, 16, kernel_size=[3, 3], stride=[1, 1], padding=[1, 1])\n"
        "  (1): ReLU()\n"
        "  (2): MaxPool2d(kernel_size=[2, 2], stride=[2, 2], padding=[0, 0], dilation=[1, 1], ceil_mode=false)\n"
        "  (3): Flatten(start_dim=1, end_dim=-1)\n"
        "  (4): Dropout(p=0.25, inplace=false)\n"
        "  (5): Linear(in_features=784, out_features=10, bias=true)\n"
        ")");
  CHECK(printed(*nn::Conv1d(nn::Conv1dOptions(2, 4, 3).stride(2).padding("same").groups(2).bias(false))) ==
        "Conv1d(2, 4, kernel_size=[3], stride=[2], padding='same', groups=2, bias=false)");
  CHECK(printed(*nn::ConvTranspose2d(nn::ConvTranspose2dOptions(4, 2, 3).stride(2).output_padding(1))) ==
        "ConvTranspose2d(4, 2, kernel_size=[3, 3], stride=[2, 2], output_padding=[1, 1])");
  CHECK(printed(*nn::Bilinear(2, 3, 4)) == "Bilinear(in1_features=2, in2_features=3, out_features=4, bias=true)");
  CHECK(printed(*nn::AvgPool2d(nn::AvgPool2dOptions(3).stride(1).padding(1))) ==
        "AvgPool2d(kernel_size=[3, 3], stride=[1, 1], padding=[1, 1])");
  CHECK(printed(*nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({2, 3}))) ==
        "AdaptiveAvgPool2d(output_size=[2, 3])");
  CHECK(printed(*nn::BatchNorm2d(nn::BatchNormOptions(8).momentum(std::nullopt).affine(false))) ==
        "BatchNorm2d(8, eps=1e-05, momentum=None, affine=false, track_running_stats=true)");
  CHECK(printed(*nn::LayerNorm(nn::LayerNormOptions({2, 3}))) == "LayerNorm([2, 3], eps=1e-05, elementwise_affine=true)");
  CHECK(printed(*nn::GroupNorm(2, 6)) == "GroupNorm(2, 6, eps=1e-05, affine=true)");
  CHECK(printed(*nn::Embedding(nn::EmbeddingOptions(10, 3).padding_idx(0))) ==
        "Embedding(num_embeddings=10, embedding_dim=3, padding_idx=0)");
  CHECK(printed(*nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2))) == "LeakyReLU(negative_slope=0.2)");
  CHECK(printed(*nn::GELU(nn::GELUOptions().approximate("tanh"))) == "GELU(approximate='tanh')");
  CHECK(printed(*nn::Softmax(1)) == "Softmax(dim=1)");
  CHECK(printed(*nn::LogSoftmax(-1)) == "LogSoftmax(dim=-1)");
  CHECK(printed(*nn::CrossEntropyLoss()) == "CrossEntropyLoss()");
  CHECK(printed(*nn::Identity()) == "Identity()");
  nn::ModuleDict dict({{"act", nn::Tanh()}, {"out", nn::Sigmoid()}});
  CHECK(printed(*dict) == "ModuleDict(\n  (act): Tanh()\n  (out): Sigmoid()\n)");
}

TEST_CASE("save / load of a module: a safetensors file of the state_dict", "[nn]") {
  manual_seed(2);
  Net a, b;
  a->bn->running_mean.fill_(0.5);
  std::string path = temp_path("net");
  ember::save(a, path);
  // The tensors are stored under the state_dict's keys.
  std::map<std::string, Tensor> file = ember::load(path);
  CHECK(file.size() == a->state_dict().size());
  CHECK(values(file.at("fc1.weight")) == values(a->fc1->weight));
  CHECK(file.at("bn.num_batches_tracked").dtype() == kInt64);
  // Python's ember.load rebuilds the dict in the module's order from the metadata.
  CHECK(ember::load_metadata(path).at("ember").find(
            "{\"dict\":[[\"scale\",{\"tensor\":\"scale\"}],[\"steps\",{\"tensor\":\"steps\"}]") !=
        std::string::npos);
  ember::load(b, path);
  for (const auto& item : a->state_dict()) CHECK(values(item.value()) == values(b->state_dict()[item.key()]));
  // A file for another model is refused (strict).
  nn::Linear other(4, 3);
  CHECK_THROWS_AS(ember::load(other, path), Error);
  std::remove(path.c_str());
}

namespace {

// libtorch's own example, word for word but the namespace.
struct LibtorchNet : ember::nn::Module {
  LibtorchNet() { fc1 = register_module("fc1", ember::nn::Linear(784, 64)); }
  ember::Tensor forward(ember::Tensor x) { return ember::relu(fc1->forward(x)); }
  ember::nn::Linear fc1{nullptr};
};

}  // namespace

TEST_CASE("A plain Module subclass in a shared_ptr, as in libtorch's examples", "[nn]") {
  auto net = std::make_shared<LibtorchNet>();
  CHECK(net->named_parameters().keys() == std::vector<std::string>{"fc1.weight", "fc1.bias"});
  CHECK(net->named_modules().keys() == std::vector<std::string>{"", "fc1"});
  CHECK(net->forward(randn({2, 784})).sizes() == DimVector{2, 64});
  ember::optim::SGD opt(net->parameters(), ember::optim::SGDOptions(0.01));
  net->forward(randn({2, 784})).sum().backward();
  Tensor before = net->fc1->weight.detach().clone();
  opt.step();
  CHECK(values(net->fc1->weight) != values(before));
  CHECK(printed(*net) == "LibtorchNet(\n  (fc1): Linear(in_features=784, out_features=64, bias=true)\n)");
}
