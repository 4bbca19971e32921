// The optimizers and learning-rate schedulers of the C++ front end
// (torch::optim's names): SGD, Adam, AdamW, RMSprop, Adagrad, and StepLR,
// MultiStepLR, ExponentialLR, CosineAnnealingLR, OneCycleLR, LambdaLR, MultiplicativeLR,
// ConstantLR, LinearLR, PolynomialLR, CosineAnnealingWarmRestarts, CyclicLR, SequentialLR,
// ChainedScheduler, ReduceLROnPlateau.
#pragma once
#include "ember/optim/adagrad.h"
#include "ember/optim/adam.h"
#include "ember/optim/adamw.h"
#include "ember/optim/lr_scheduler.h"
#include "ember/optim/lr_scheduler_compose.h"
#include "ember/optim/optimizer.h"
#include "ember/optim/rmsprop.h"
#include "ember/optim/serialize.h"
#include "ember/optim/sgd.h"
