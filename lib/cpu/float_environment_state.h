// The floating-point environment that ember's CPU threads share: whether denormals
// are flushed to zero (ember.set_flush_denormal). Each thread has its own MXCSR, so
// the setting is kept here and applied by every thread that runs ember's tasks (the
// pool's workers check it when they join a region; see thread_pool.cpp).
#pragma once

namespace ember::cpu {

// The mode ember.set_flush_denormal asked for (0: IEEE; otherwise the MXCSR bits).
unsigned wanted_float_mode();
void set_wanted_float_mode(unsigned mode);

// The calling thread's mode, and setting it; apply_float_mode returns the new mode.
unsigned current_float_mode();
unsigned apply_float_mode(unsigned mode);

}  // namespace ember::cpu
