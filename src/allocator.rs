//! The process's allocator: mimalloc, called through its plain entry points whenever the
//! alignment asked for is one every mimalloc block already has.
//!
//! The `mimalloc` crate's `MiMalloc` sends every allocation through `mi_malloc_aligned`, which
//! first checks whether the free block it would hand out happens to have the alignment asked
//! for. Nearly every allocation here asks for the word alignment that every block has, so that
//! check is paid for nothing on each of the ~80 allocations of an admission.

use libmimalloc_sys as mi;
use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

/// The alignment of every block mimalloc hands out: its size classes are whole machine words.
const BLOCK_ALIGN: usize = std::mem::size_of::<usize>();

/// mimalloc as the global allocator.
pub struct Allocator;

/// Whether any block of mimalloc's has the alignment `layout` asks for.
#[inline]
fn any_block_fits(layout: Layout) -> bool {
    layout.align() <= BLOCK_ALIGN
}

// SAFETY: each method hands the request to the mimalloc function made for it; the plain ones only
// when every block they return has the alignment asked for (`any_block_fits`). Every block comes
// from mimalloc's heap, so `mi_free` and `mi_realloc` accept any of them.
unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if any_block_fits(layout) {
            mi::mi_malloc(layout.size()).cast()
        } else {
            mi::mi_malloc_aligned(layout.size(), layout.align()).cast()
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if any_block_fits(layout) {
            mi::mi_zalloc(layout.size()).cast()
        } else {
            mi::mi_zalloc_aligned(layout.size(), layout.align()).cast()
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        mi::mi_free(ptr.cast::<c_void>());
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if any_block_fits(layout) {
            mi::mi_realloc(ptr.cast::<c_void>(), new_size).cast()
        } else {
            mi::mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sizes and alignments on both sides of `BLOCK_ALIGN`, small and large.
    const LAYOUTS: [(usize, usize); 10] = [
        (1, 1),
        (3, 2),
        (8, 8),
        (24, 8),
        (24, 16),
        (100, 32),
        (64, 64),
        (4096, 4096),
        (1 << 20, 8),
        (1 << 20, 1 << 16),
    ];

    fn layout(size: usize, align: usize) -> Layout {
        Layout::from_size_align(size, align).expect("a valid layout")
    }

    /// Asserts that `p` is a block aligned to `align`; `what` names it in the failure.
    fn assert_aligned(p: *mut u8, align: usize, what: &str) {
        assert!(!p.is_null(), "{what}: no block");
        assert_eq!(p as usize % align, 0, "{what}: not aligned to {align}");
    }

    /// Whether the `size` bytes at `p` are all `byte`.
    ///
    /// # Safety
    /// `p` must be readable for `size` bytes.
    unsafe fn all_bytes_are(p: *const u8, size: usize, byte: u8) -> bool {
        (0..size).all(|i| *p.add(i) == byte)
    }

    #[test]
    fn every_block_has_the_alignment_asked_for_and_keeps_its_bytes_through_realloc() {
        for (size, align) in LAYOUTS {
            let l = layout(size, align);
            // SAFETY: the layout's size is not zero; the block is written within its size,
            // reallocated with the layout it was allocated with, and freed once.
            unsafe {
                let p = Allocator.alloc(l);
                assert_aligned(p, align, &format!("{size} bytes"));
                p.write_bytes(0xa5, size);
                let grown = Allocator.realloc(p, l, size * 3);
                assert_aligned(grown, align, &format!("{size} bytes grown"));
                assert!(all_bytes_are(grown, size, 0xa5), "{size} bytes kept");
                Allocator.dealloc(grown, layout(size * 3, align));
            }
        }
    }

    #[test]
    fn a_zeroed_block_is_zeroed_and_aligned() {
        for (size, align) in LAYOUTS {
            let l = layout(size, align);
            // SAFETY: as above; the block is read within its size and freed once.
            unsafe {
                let p = Allocator.alloc_zeroed(l);
                assert_aligned(p, align, &format!("{size} zeroed bytes"));
                assert!(all_bytes_are(p, size, 0), "{size} bytes zeroed");
                Allocator.dealloc(p, l);
            }
        }
    }
}
