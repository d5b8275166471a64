"""Writes the JAX training steps that jax_models_test runs (HLO text as
jax.jit(...).lower(...).as_text(dialect="hlo") prints it):

  jax_cnn_train_step.hlo  conv (SAME), max pool, strided conv, mean, dense,
                          softmax cross-entropy, SGD update
  jax_rnn_train_step.hlo  embedding gather, a 32-step tanh RNN by lax.scan,
                          a vocabulary projection, log-softmax NLL and
                          accuracy, the backward pass through the scan, SGD

Run in this directory: python3 make_jax_models.py
"""
import jax
import jax.numpy as jnp
import numpy as np


def cnn_step(k1, b1, k2, b2, w, b, x, y):
    def conv(h, k, stride=1):
        return jax.lax.conv_general_dilated(h, k, (stride, stride), "SAME",
                                            dimension_numbers=("NHWC", "HWIO", "NHWC"))

    def loss(p):
        h = jax.nn.relu(conv(x, p["k1"]) + p["b1"])
        h = jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        h = jax.nn.relu(conv(h, p["k2"], 2) + p["b2"])
        logits = jnp.mean(h, axis=(1, 2)) @ p["w"] + p["b"]
        return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, axis=-1))

    p = dict(k1=k1, b1=b1, k2=k2, b2=b2, w=w, b=b)
    l, g = jax.value_and_grad(loss)(p)
    new = {n: p[n] - 0.01 * g[n] for n in p}
    return l, new["k1"], new["b1"], new["k2"], new["b2"], new["w"], new["b"]


V, E, H, T, B = 1000, 64, 128, 32, 16


def rnn_step(emb, wx, wh, b, wo, tokens, targets):
    def loss(p):
        x = p["emb"][tokens]

        def cell(h, xt):
            h = jnp.tanh(xt @ p["wx"] + h @ p["wh"] + p["b"])
            return h, h

        _, hs = jax.lax.scan(cell, jnp.zeros((B, H), jnp.float32), jnp.swapaxes(x, 0, 1))
        logits = hs @ p["wo"]
        logp = jax.nn.log_softmax(logits, axis=-1)
        tgt = jnp.swapaxes(targets, 0, 1)
        nll = -jnp.take_along_axis(logp, tgt[..., None], axis=-1)
        return jnp.mean(nll), jnp.mean(jnp.argmax(logits, -1) == tgt)

    p = dict(emb=emb, wx=wx, wh=wh, b=b, wo=wo)
    (l, acc), g = jax.value_and_grad(loss, has_aux=True)(p)
    new = {n: p[n] - 0.1 * g[n] for n in p}
    return l, acc, new["emb"], new["wx"], new["wh"], new["b"], new["wo"]


def main():
    f32 = lambda *s: jax.ShapeDtypeStruct(s, np.float32)
    s32 = lambda *s: jax.ShapeDtypeStruct(s, np.int32)
    cnn = jax.jit(cnn_step).lower(f32(3, 3, 1, 16), f32(16), f32(3, 3, 16, 32), f32(32),
                                  f32(32, 10), f32(10), f32(32, 28, 28, 1), f32(32, 10))
    rnn = jax.jit(rnn_step).lower(f32(V, E), f32(E, H), f32(H, H), f32(H), f32(H, V),
                                  s32(B, T), s32(B, T))
    with open("jax_cnn_train_step.hlo", "w") as out:
        out.write(cnn.as_text(dialect="hlo"))
    with open("jax_rnn_train_step.hlo", "w") as out:
        out.write(rnn.as_text(dialect="hlo"))


if __name__ == "__main__":
    main()
