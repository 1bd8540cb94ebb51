#pragma once
/// The number of steps of a spec, or -1 when it does not load.
int consumer_step_count(const char* spec_path);
