// ember::distributed: torch.distributed in C++ (docs/distributed.md).
// Rendezvous stores (TCPStore, FileStore, HashStore, PrefixStore), process groups
// and their collectives on CPU tensors over Gloo.
//
// Not included by ember/ember.h: include this header where it is needed. Gloo is an
// optional dependency; is_gloo_available() says whether this build has it.
#pragma once
#include "ember/distributed/errors.h"
#include "ember/distributed/process_group.h"
#include "ember/distributed/store.h"
#include "ember/distributed/work.h"
