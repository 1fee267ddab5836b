// bindings: see lib.rs (filled in with the simulation driver)
