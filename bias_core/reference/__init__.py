"""Reference material bias_core ships or checks against: the demo run and its precomputed findings, and the papers'
published numbers recomputed from the authors' released outputs."""
