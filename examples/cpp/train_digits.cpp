// Trains the digits CNN of examples/train_digits.py in C++, with the same API
// names: ember::nn modules, ember::optim::AdamW with a one-cycle schedule,
// ember::data::DataLoader, and ember::save for the trained weights.
//
//   python examples/export_digits.py            # writes examples/data/digits.safetensors
//   build/examples/train_digits [DATA] [--epochs N] [--save PATH]
//
// The data file holds x_train [N,1,8,8] float32, y_train [N] int64, x_test and
// y_test (scikit-learn's 8x8 digits, normalized and split by export_digits.py).
// Prints the loss and accuracies of each epoch, then "test accuracy: P%".
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <string>

#include <ember/ember.h>

namespace nn = ember::nn;
namespace optim = ember::optim;
using ember::Tensor;

// Two 3x3 conv blocks with batch norm, each halving the image (8x8 -> 4x4 -> 2x2),
// then a linear layer: the CNN of train_digits.py.
nn::Sequential make_cnn() {
  return nn::Sequential(
      nn::Conv2d(nn::Conv2dOptions(1, 32, 3).padding(1)), nn::BatchNorm2d(32), nn::ReLU(),
      nn::MaxPool2d(2),
      nn::Conv2d(nn::Conv2dOptions(32, 64, 3).padding(1)), nn::BatchNorm2d(64), nn::ReLU(),
      nn::MaxPool2d(2),
      nn::Flatten(), nn::Dropout(0.25), nn::Linear(64 * 2 * 2, 10));
}

// Fraction of x classified as y, in eval mode and without recording a graph.
double accuracy(nn::Sequential& model, const Tensor& x, const Tensor& y) {
  model->eval();
  ember::NoGradGuard no_grad;
  Tensor predicted = model->forward(x).argmax(1);
  return predicted.eq(y).to(ember::kFloat64).mean().item<double>();
}

int main(int argc, char** argv) {
  std::string data_path = "examples/data/digits.safetensors", save_path;
  int epochs = 12;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--epochs" && i + 1 < argc) epochs = std::atoi(argv[++i]);
    else if (arg == "--save" && i + 1 < argc) save_path = argv[++i];
    else data_path = arg;
  }
  std::map<std::string, Tensor> data;
  try {
    data = ember::load(data_path);
  } catch (const ember::Error& e) {
    std::cerr << e.what() << "\n(run `python examples/export_digits.py` first)\n";
    return 2;
  }
  const Tensor &x_train = data["x_train"], &y_train = data["y_train"];
  const Tensor &x_test = data["x_test"], &y_test = data["y_test"];

  ember::manual_seed(0);
  nn::Sequential model = make_cnn();
  ember::data::DataLoader loader(ember::data::TensorDataset(x_train, y_train),
                                 ember::data::DataLoaderOptions(32).shuffle(true).seed(0));
  const double lr = 3e-3;
  optim::AdamW optimizer(model->parameters(), optim::AdamWOptions(lr).weight_decay(1e-4));
  optim::OneCycleLR scheduler(optimizer, optim::OneCycleLROptions(lr, epochs * loader.size()));
  nn::CrossEntropyLoss loss_fn(nn::CrossEntropyLossOptions().label_smoothing(0.1));

  std::cout << model << "\n";
  std::cout << std::fixed << std::setprecision(2);
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    model->train();
    double total = 0;
    int64_t seen = 0;
    for (ember::data::Example& batch : loader) {
      optimizer.zero_grad();
      Tensor loss = loss_fn(model->forward(batch.data), batch.target);
      loss.backward();
      optimizer.step();
      scheduler.step();
      total += loss.item<double>() * batch.data.size(0);
      seen += batch.data.size(0);
    }
    std::cout << "epoch " << std::setw(2) << epoch << "/" << epochs << ": loss "
              << std::setprecision(4) << total / seen << std::setprecision(2) << ", train "
              << 100 * accuracy(model, x_train, y_train) << "%, test "
              << 100 * accuracy(model, x_test, y_test) << "%\n";
  }
  std::cout << "test accuracy: " << 100 * accuracy(model, x_test, y_test) << "%\n";
  if (!save_path.empty()) ember::save(model, save_path);  // Python: ember.load(path) -> state_dict
  return 0;
}
