// The lock types (`Mutex`) live in `StoreSimSync`, which the HTTP module shares without
// depending on the core; every module that imports the core sees them too.
@_exported import StoreSimSync
