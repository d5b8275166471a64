"""Writes the JAX linear-algebra programs that linalg_test runs, with XLA's
results: jnp.linalg and jax.scipy.linalg functions, which JAX's CPU lowering
turns into LAPACK custom calls (lapack_?potrf_ffi, ?getrf, ?trsm, ?geqrf,
?orgqr/?ungqr, ?syevd/?heevd, ?gesdd, ?gesvd, ?geev, ?gtsv, ?gehrd,
?sytrd/?hetrd, ?gees, ?geqp3).

Eigenvectors and singular vectors are unique only up to sign (a complex
phase), which LAPACK builds choose differently, so those programs return
what does not depend on it: values, |vectors|, reconstructions and Gram
matrices.

  jax_linalg/<case>/module.hlo   jax.jit(f).lower(...).as_text(dialect="hlo")
  jax_linalg/<case>/in<i>.npy    the inputs
  jax_linalg/<case>/out<i>.npy   XLA's outputs
  jax_linalg/INDEX               case #inputs #outputs relative-tolerance

Run in this directory: python3 make_jax_linalg.py
"""
import os

import jax

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_platforms", "cpu")
import jax.numpy as jnp  # noqa: E402
import jax.scipy.linalg as jsl  # noqa: E402
import numpy as np  # noqa: E402

rng = np.random.default_rng(7)


def general(*shape, dtype=np.float32):
    x = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def positive_definite(*shape, dtype=np.float32):
    x = general(*shape, dtype=dtype)
    n = shape[-1]
    return (x @ np.conj(np.swapaxes(x, -1, -2)) + n * np.eye(n)).astype(dtype)


def lower_triangle(*shape, dtype=np.float32):
    # Well conditioned: a dominant diagonal; the upper triangle holds junk
    # that a solve must not read.
    x = general(*shape, dtype=dtype)
    n = shape[-1]
    return (x + 2 * n * np.eye(n)).astype(dtype)


def cholesky_cases():
    spd = positive_definite(3, 6, 6)
    spd[2] = -spd[2]  # not positive definite: JAX gives NaN
    yield "cholesky_f32", jnp.linalg.cholesky, [spd], 1e-5
    yield ("cholesky_upper_c64", lambda a: jsl.cholesky(a, lower=False),
           [positive_definite(2, 5, 5, dtype=np.complex64)], 1e-5)
    yield ("cho_solve_f64", lambda a, b: jsl.cho_solve(jsl.cho_factor(a), b),
           [positive_definite(7, 7, dtype=np.float64), general(7, 3, dtype=np.float64)], 1e-10)


def lu_cases():
    yield "solve_f32", jnp.linalg.solve, [general(9, 9), general(9, 4)], 1e-4
    yield ("solve_batched_f64", jnp.linalg.solve,
           [general(3, 6, 6, dtype=np.float64), general(3, 6, 2, dtype=np.float64)], 1e-10)
    yield "inv_c64", jnp.linalg.inv, [general(6, 6, dtype=np.complex64)], 1e-4
    yield "slogdet_f32", lambda a: tuple(jnp.linalg.slogdet(a)), [general(4, 5, 5)], 1e-4
    yield "det_c128", jnp.linalg.det, [general(2, 4, 4, dtype=np.complex128)], 1e-10
    yield "lu_factor_f32", lambda a: tuple(jsl.lu_factor(a)), [general(8, 8)], 1e-5
    yield "lu_wide_f64", lambda a: tuple(jax.lax.linalg.lu(a)), [general(5, 8, dtype=np.float64)], 1e-10
    yield "lu_tall_c64", lambda a: tuple(jax.lax.linalg.lu(a)), [general(8, 5, dtype=np.complex64)], 1e-5
    singular = general(5, 5)
    singular[:, 2] = 0
    yield "lu_singular_f32", lambda a: tuple(jsl.lu_factor(a)), [singular], 1e-5


def qr_cases():
    yield "qr_f32", lambda a: tuple(jnp.linalg.qr(a)), [general(3, 5, 4)], 1e-4
    yield ("qr_complete_c64", lambda a: tuple(jnp.linalg.qr(a, mode="complete")),
           [general(4, 6, dtype=np.complex64)], 1e-4)
    yield "qr_r_f64", lambda a: jnp.linalg.qr(a, mode="r"), [general(8, 5, dtype=np.float64)], 1e-10
    yield ("qr_complete_c128", lambda a: tuple(jnp.linalg.qr(a, mode="complete")),
           [general(6, 3, dtype=np.complex128)], 1e-10)


def triangular_cases():
    a, b = lower_triangle(6, 6), general(6, 3)
    yield "trsm_lower_f32", lambda a, b: jsl.solve_triangular(a, b, lower=True), [a, b], 1e-5
    yield ("trsm_upper_trans_unit_f32",
           lambda a, b: jsl.solve_triangular(a, b, lower=False, trans=1, unit_diagonal=True),
           [lower_triangle(6, 6), general(6, 3)], 1e-4)
    yield ("trsm_lower_adjoint_c64", lambda a, b: jsl.solve_triangular(a, b, lower=True, trans=2),
           [lower_triangle(2, 5, 5, dtype=np.complex64), general(2, 5, 4, dtype=np.complex64)], 1e-5)
    yield ("trsm_right_f64",
           lambda a, b: jax.lax.linalg.triangular_solve(a, b, left_side=False, lower=True,
                                                        transpose_a=True),
           [lower_triangle(4, 4, dtype=np.float64), general(3, 4, dtype=np.float64)], 1e-10)
    yield ("trsm_right_upper_c128",
           lambda a, b: jax.lax.linalg.triangular_solve(a, b, left_side=False, lower=False,
                                                        conjugate_a=True),
           [lower_triangle(4, 4, dtype=np.complex128), general(2, 4, dtype=np.complex128)], 1e-10)


def hermitian(*shape, dtype=np.float32):
    x = general(*shape, dtype=dtype)
    return ((x + np.conj(np.swapaxes(x, -1, -2))) / 2).astype(dtype)


def eigh_invariants(a, **kwargs):
    w, v = jnp.linalg.eigh(a, **kwargs)
    vh = jnp.conj(jnp.swapaxes(v, -1, -2))
    return w, jnp.abs(v), (v * w[..., None, :]) @ vh, vh @ v


def svd_invariants(a, full_matrices):
    u, s, vt = jnp.linalg.svd(a, full_matrices=full_matrices)
    k = s.shape[-1]
    uh = jnp.conj(jnp.swapaxes(u, -1, -2))
    vh = jnp.conj(jnp.swapaxes(vt, -1, -2))
    # The first k pairs are unique up to phase; the rest of a full U or V^H
    # is any orthonormal completion.
    return (s, jnp.abs(u[..., :k]), jnp.abs(vt[..., :k, :]),
            (u[..., :k] * s[..., None, :]) @ vt[..., :k, :], uh @ u, vt @ vh)


def spectral_cases():
    yield "eigh_f32", eigh_invariants, [hermitian(6, 6)], 1e-4
    # The upper triangle only: the lower one holds junk that must not be read.
    junk = hermitian(2, 5, 5, dtype=np.complex64) + np.tril(general(2, 5, 5, dtype=np.complex64), -1)
    yield ("eigh_upper_c64", lambda a: eigh_invariants(a, UPLO="U", symmetrize_input=False),
           [junk], 1e-4)
    yield "eigvalsh_f64", jnp.linalg.eigvalsh, [hermitian(3, 7, 7, dtype=np.float64)], 1e-10
    yield "svd_wide_full_f32", lambda a: svd_invariants(a, True), [general(4, 6)], 1e-4
    yield ("svd_tall_reduced_c64", lambda a: svd_invariants(a, False),
           [general(2, 7, 3, dtype=np.complex64)], 1e-4)
    yield ("svd_tall_full_c128", lambda a: svd_invariants(a, True),
           [general(5, 3, dtype=np.complex128)], 1e-10)
    yield ("svd_values_f64", lambda a: jnp.linalg.svd(a, compute_uv=False),
           [general(6, 4, dtype=np.float64)], 1e-10)
    yield ("svd_gesvd_f32",
           lambda a: jax.lax.linalg.svd(a, compute_uv=False,
                                        algorithm=jax.lax.linalg.SvdAlgorithm.QR),
           [general(5, 5)], 1e-4)
    rank_two = general(6, 2) @ general(2, 5)
    yield "pinv_rank_deficient_f32", jnp.linalg.pinv, [rank_two], 1e-4
    yield "matrix_rank_f32", jnp.linalg.matrix_rank, [rank_two], 0
    yield ("lstsq_f64", lambda a, b: jnp.linalg.lstsq(a, b)[0],
           [general(8, 3, dtype=np.float64), general(8, 2, dtype=np.float64)], 1e-10)
    yield "norm2_f32", lambda a: jnp.linalg.norm(a, ord=2), [general(9, 4)], 1e-5


def eig_invariants(a):
    """What no eigenvalue order or vector phase changes: the sorted real
    parts and |imaginary parts|, how many eigenvalues are exactly real,
    the residuals |A v - w v| and |u^H A - w u^H|, and the vectors' norms."""
    w, vl, vr = jax.lax.linalg.eig(a, compute_left_eigenvectors=True)
    ul = jnp.conj(jnp.swapaxes(vl, -1, -2))
    right = jnp.abs(a @ vr - vr * w[..., None, :])
    left = jnp.abs(ul @ a - w[..., :, None] * ul)
    return (jnp.sort(w.real, axis=-1), jnp.sort(jnp.abs(w.imag), axis=-1),
            jnp.sum(w.imag == 0, axis=-1), right, left,
            jnp.linalg.norm(vr, axis=-2), jnp.linalg.norm(vl, axis=-2))


def eigvals_invariants(a):
    w = jnp.linalg.eigvals(a)
    return jnp.sort(w.real, axis=-1), jnp.sort(jnp.abs(w.imag), axis=-1)


def general_eigen_cases():
    yield "eig_f32", eig_invariants, [general(6, 6)], 1e-4
    yield "eig_c64", eig_invariants, [general(5, 5, dtype=np.complex64)], 1e-4
    yield "eigvals_batched_f64", eigvals_invariants, [general(3, 7, 7, dtype=np.float64)], 1e-10
    yield "eig_c128", eig_invariants, [general(2, 4, 4, dtype=np.complex128)], 1e-10


def tridiagonal_cases():
    # dl[0] and du[-1] are outside the matrix: junk here, which XLA does
    # not read.  Random diagonals make some steps pivot (swap rows).
    def system(batch, n, nrhs, dtype):
        return [general(*batch, n, dtype=dtype) for _ in range(3)] + [
            general(*batch, n, nrhs, dtype=dtype)]
    solve = jax.lax.linalg.tridiagonal_solve
    yield "tridiagonal_solve_f32", solve, system((2,), 9, 3, np.float32), 1e-3
    yield "tridiagonal_solve_f64", solve, system((3, 2), 40, 1, np.float64), 1e-8
    yield "tridiagonal_solve_c64", solve, system((), 6, 2, np.complex64), 1e-3
    yield "tridiagonal_solve_c128", solve, system((2,), 17, 4, np.complex128), 1e-8


def condensed_cases():
    # The reflectors are unique (LAPACK's larfg convention), so the whole
    # results compare.  The tridiagonal reductions get general matrices:
    # the triangle not read must come back as it was.
    hessenberg = jax.lax.linalg.hessenberg
    yield "hessenberg_f32", hessenberg, [general(6, 6)], 1e-4
    yield "hessenberg_c128", hessenberg, [general(2, 9, 9, dtype=np.complex128)], 1e-10
    tridiagonal = jax.lax.linalg.tridiagonal
    yield "tridiagonal_f64", tridiagonal, [general(2, 8, 8, dtype=np.float64)], 1e-10
    yield ("tridiagonal_upper_c64", lambda a: tridiagonal(a, lower=False),
           [general(7, 7, dtype=np.complex64)], 1e-4)


def schur_invariants(a):
    # The eigenvalue order on T's diagonal and Z's column phases are free:
    # the sorted diagonal, |Z T Z^H - A|, |Z^H Z - I| and T's largest
    # element below the diagonal do not depend on them.
    t, z = jax.lax.linalg.schur(a)
    zh = jnp.conj(jnp.swapaxes(z, -1, -2))
    eye = jnp.eye(a.shape[-1], dtype=a.dtype)
    return (jnp.sort(jnp.diagonal(t, axis1=-2, axis2=-1), axis=-1),
            jnp.max(jnp.abs(z @ t @ zh - a), axis=(-2, -1)),
            jnp.max(jnp.abs(zh @ z - eye), axis=(-2, -1)),
            jnp.max(jnp.abs(jnp.tril(t, -1)), axis=(-2, -1)))


def real_schur_invariants(a):
    # T quasi-triangular with standardized 2 x 2 blocks [x b; c x]: its
    # sorted diagonal (the eigenvalues' real parts) and sorted products
    # T[i+1,i] T[i,i+1] (minus the squared imaginary parts, 0 off the
    # blocks) are order-free, as are |Z T Z^T - A|, |Z^T Z - I|, T's
    # largest element below the subdiagonal and two adjacent subdiagonal
    # elements' largest product (no 3 x 3 blocks).
    t, z = jax.lax.linalg.schur(a)
    zt = jnp.swapaxes(z, -1, -2)
    eye = jnp.eye(a.shape[-1], dtype=a.dtype)
    sub = jnp.diagonal(t, offset=-1, axis1=-2, axis2=-1)
    sup = jnp.diagonal(t, offset=1, axis1=-2, axis2=-1)
    return (jnp.sort(jnp.diagonal(t, axis1=-2, axis2=-1), axis=-1),
            jnp.sort(sub * sup, axis=-1),
            jnp.max(jnp.abs(z @ t @ zt - a), axis=(-2, -1)),
            jnp.max(jnp.abs(zt @ z - eye), axis=(-2, -1)),
            jnp.max(jnp.abs(jnp.tril(t, -2)), axis=(-2, -1)),
            jnp.max(jnp.abs(sub[..., 1:] * sub[..., :-1]), axis=-1))


def schur_cases():
    yield "schur_c64", schur_invariants, [general(6, 6, dtype=np.complex64)], 1e-4
    yield "schur_batched_c128", schur_invariants, [general(2, 12, 12, dtype=np.complex128)], 1e-10
    yield ("schur_values_c64",
           lambda a: jnp.sort(jnp.diagonal(
               jax.lax.linalg.schur(a, compute_schur_vectors=False)[0])),
           [general(5, 5, dtype=np.complex64)], 1e-4)
    # The principal square root is unique: it compares directly.
    yield ("sqrtm_f64", jsl.sqrtm,
           [(general(5, 5, dtype=np.float64) + 6 * np.eye(5)).astype(np.float64)], 1e-8)
    yield "schur_real_f32", real_schur_invariants, [general(7, 7)], 1e-4
    yield ("schur_real_batched_f64", real_schur_invariants,
           [general(2, 10, 10, dtype=np.float64)], 1e-10)
    yield ("schur_real_values_f64",
           lambda a: jnp.sort(jnp.diagonal(
               jax.lax.linalg.schur(a, compute_schur_vectors=False)[0])),
           [general(6, 6, dtype=np.float64)], 1e-10)


def pivoted_qr_cases():
    # Random columns have distinct norms, so the pivots (and with them Q
    # and R) are unique and compare directly.
    qr = jsl.qr
    yield "qr_pivoting_f32", lambda a: qr(a, pivoting=True), [general(6, 4)], 1e-4
    yield ("qr_pivoting_economic_f64", lambda a: qr(a, pivoting=True, mode="economic"),
           [general(9, 5, dtype=np.float64)], 1e-10)
    yield ("qr_pivoting_wide_c64", lambda a: qr(a, pivoting=True, mode="r"),
           [general(4, 7, dtype=np.complex64)], 1e-4)


def main():
    root = "jax_linalg"
    index = []
    for cases in (cholesky_cases, lu_cases, qr_cases, triangular_cases, spectral_cases,
                  general_eigen_cases, tridiagonal_cases, condensed_cases, schur_cases,
                  pivoted_qr_cases):
        for name, fn, inputs, tolerance in cases():
            lowered = jax.jit(fn).lower(*inputs)
            outputs = jax.jit(fn)(*inputs)
            if isinstance(outputs, list):  # lax.linalg.hessenberg's
                outputs = tuple(outputs)
            if not isinstance(outputs, tuple):
                outputs = (outputs,)
            directory = os.path.join(root, name)
            os.makedirs(directory, exist_ok=True)
            with open(os.path.join(directory, "module.hlo"), "w") as f:
                f.write(lowered.as_text(dialect="hlo"))
            for i, x in enumerate(inputs):
                np.save(os.path.join(directory, f"in{i}.npy"), np.asarray(x))
            for i, y in enumerate(outputs):
                np.save(os.path.join(directory, f"out{i}.npy"), np.asarray(y))
            index.append(f"{name} {len(inputs)} {len(outputs)} {tolerance}")
    with open(os.path.join(root, "INDEX"), "w") as f:
        f.write("\n".join(index) + "\n")


if __name__ == "__main__":
    main()
