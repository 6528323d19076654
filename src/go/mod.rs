//! Go (not built yet): bitmap boards of 9×9, 13×13 and 19×19, exact
//! legality, the rule-2/4 eye test, playouts and a GTP engine, on the CPU and
//! on the GPU. The command line's `gpu-movegen go ...` says so until this
//! module lands.
