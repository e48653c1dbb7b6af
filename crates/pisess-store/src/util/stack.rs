//! A stack deep enough for the deepest line pisess reads (`json::DECODE_DEPTH` levels): the
//! decode, the renderers, the serializer and the drop of a `Value` all recurse once a level.
//! The binary runs its command on such a thread, and so does each worker of
//! `parallel::ordered` (ls, grep, stats); the stack is reserved, not touched, so it costs
//! address space only.

use std::sync::Mutex;

/// Bytes of stack: 100,000 levels through serde_json, a renderer and a drop take well under
/// this in a debug build.
pub const SIZE: usize = 512 << 20;

/// Runs `f` on a thread with [`SIZE`] bytes of stack, or on this one when no such thread can be
/// made (a memory limit below the reservation): then only lines nested far deeper than any
/// real one could overflow it.
pub fn run<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    let slot = Mutex::new(Some(f));
    let taken = || slot.lock().ok().and_then(|mut f| f.take());
    let on_thread = std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .stack_size(SIZE)
            .spawn_scoped(scope, || taken().map(|f| f()));
        // A panic on the thread is a bug: raise it here.
        spawned
            .ok()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
    });
    match on_thread.flatten() {
        Some(value) => value,
        None => {
            let f = slot
                .into_inner()
                .ok()
                .flatten()
                .expect("not run, so still here");
            f()
        }
    }
}

/// Spawns `f` on `scope` with [`SIZE`] bytes of stack, or with the default stack when no such
/// thread can be made (a memory limit below the reservation), as [`run`] falls back.
pub fn spawn_scoped<'scope, F>(scope: &'scope std::thread::Scope<'scope, '_>, f: F)
where
    F: FnOnce() + Send + 'scope,
{
    let slot = std::sync::Arc::new(Mutex::new(Some(f)));
    let big = std::sync::Arc::clone(&slot);
    let spawned = std::thread::Builder::new()
        .stack_size(SIZE)
        .spawn_scoped(scope, move || {
            if let Some(f) = big.lock().ok().and_then(|mut f| f.take()) {
                f();
            }
        });
    if spawned.is_err() {
        if let Some(f) = slot.lock().ok().and_then(|mut f| f.take()) {
            scope.spawn(f);
        }
    }
}
