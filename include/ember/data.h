// ember::data: datasets, samplers and the DataLoader (torch.utils.data's ideas in C++).
#pragma once
#include "ember/data/dataloader.h"
#include "ember/data/dataset.h"
#include "ember/data/sampler.h"
