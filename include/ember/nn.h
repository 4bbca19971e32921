// ember::nn, the C++ front end's modules (torch::nn's names): Module and
// module holders, the layers, containers and losses, functional, init, utils (gradient
// clipping), and ember::save / ember::load of a module.
#pragma once
#include "ember/nn/functional.h"
#include "ember/nn/init.h"
#include "ember/nn/module.h"
#include "ember/nn/modules/activation.h"
#include "ember/nn/modules/activation_extra.h"
#include "ember/nn/modules/container.h"
#include "ember/nn/modules/conv.h"
#include "ember/nn/modules/dropout.h"
#include "ember/nn/modules/linear.h"
#include "ember/nn/modules/loss.h"
#include "ember/nn/modules/normalization.h"
#include "ember/nn/modules/pooling.h"
#include "ember/nn/modules/rnn.h"
#include "ember/nn/modules/transformer.h"
#include "ember/nn/modules/layers_extra.h"
#include "ember/nn/modules/loss_extra.h"
#include "ember/nn/serialize.h"
#include "ember/nn/utils.h"
