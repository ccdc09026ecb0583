#!/usr/bin/env python3
"""SmolLM2's tokenizer.json (make_smollm2.py) against the tokenizer the GGUF describes.

    smollm2_tokenizer_check.py FOLDER [--gguf FILE] [--text FILE]...

Three tokenizers on the same texts, id for id:
1. Hugging Face's tokenizers on FOLDER/tokenizer.json (what `dmlrun generate` uses);
2. onnxruntime-genai's own tokenizer on FOLDER (onnxruntime-extensions);
3. a byte-level BPE written here from the GGUF alone (GPT-2's algorithm: the bytes mapped to
   GPT-2's printable alphabet, pieces split as llama.cpp's "smollm" pre-tokenizer does, merges
   applied by rank, special tokens matched first): independent of the other two's code.

The texts: fixed ones (digits, spaces, punctuation, non-Latin scripts, emoji, the chat markers),
each --text file's lines, and 2000 random mixes of such pieces (seeded). Exit 1 on any difference.

Needs: gguf, regex, tokenizers, onnxruntime-genai (pip).
"""
import argparse
import random
import sys

import regex

# llama.cpp's "smollm" pre-tokenizer: \p{N} alone, then GPT-2's regex (src/llama-vocab.cpp).
DIGIT = regex.compile(r"\p{N}")
GPT2 = regex.compile(r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+")

PIECES = ["Hello", " world", "  ", "\n", "\n\n", "\t", "123", "4567890", " 42", "x²", "½", "٣", "१२", "3.14",
          "1,000,000", "I'm", "they'll", "DON'T", "'s", " 's", "café", "naïve", "日本語", "한국어", "Привет", "🙂",
          "👍🏽", "\xa0", "<|im_start|>", "<|im_end|>", "<|endoftext|>", "def f(x):\n    return x**2", "   leading",
          "trailing   ", "!!!", "...", "--", "©", "\r\n", "ééé", "a1b2c3", "v2.0", "0x1F"]
FIXED = ["The capital of France is", "Hello world! 123", "Numbers 12345 and 3.14159 and 1,000,000", "x² + y³ = z½",
         "  multiple   spaces", "tabs\tand\nnewlines\r\nmixed", "Emoji: 😀👍🏽🇺🇸 and ❤️", "Ünïcödé ﬁ ligature",
         "2024-01-01T12:00:00Z", "<|im_start|>user\nWhat is the capital of France?<|im_end|>\n<|im_start|>assistant\n",
         "Steps:\n\n1. Do it", "\r\n42", "٣٤٥ Arabic-Indic digits"]


def bytes_to_unicode():
    """GPT-2's map from the 256 byte values to printable characters."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


class GgufBpe:
    def __init__(self, path):
        from gguf import GGUFReader

        fields = GGUFReader(path).fields
        strings = lambda key: [str(bytes(fields[key].parts[i]), "utf-8") for i in fields[key].data]
        self.tokens = strings("tokenizer.ggml.tokens")
        types = [int(fields["tokenizer.ggml.token_type"].parts[i][0]) for i in fields["tokenizer.ggml.token_type"].data]
        self.ids = {t: i for i, t in enumerate(self.tokens)}
        self.ranks = {tuple(m.split(" ", 1)): r for r, m in enumerate(strings("tokenizer.ggml.merges"))}
        self.special = sorted((t for t, kind in zip(self.tokens, types) if kind == 3), key=len, reverse=True)
        self.byte_map = bytes_to_unicode()

    def bpe(self, word):
        parts = list(word)
        while len(parts) > 1:
            pairs = [(self.ranks.get((a, b), float("inf")), i) for i, (a, b) in enumerate(zip(parts, parts[1:]))]
            rank, i = min(pairs)
            if rank == float("inf"):
                break
            parts[i:i + 2] = [parts[i] + parts[i + 1]]
        return parts

    def encode(self, text):
        ids = []
        for chunk, is_special in self.split_special(text):
            if is_special:
                ids.append(self.ids[chunk])
                continue
            for piece in self.pre_tokenize(chunk):
                mapped = "".join(self.byte_map[b] for b in piece.encode("utf-8"))
                # A byte the vocabulary lacks is dropped, as Hugging Face's BPE without an
                # unknown token does.
                ids.extend(self.ids[p] for p in self.bpe(mapped) if p in self.ids)
        return ids

    def split_special(self, text):
        at = 0
        while at < len(text):
            found = [(text.find(s, at), s) for s in self.special if text.find(s, at) >= 0]
            if not found:
                yield text[at:], False
                return
            start, s = min(found, key=lambda f: (f[0], -len(f[1])))
            if start > at:
                yield text[at:start], False
            yield s, True
            at = start + len(s)

    @staticmethod
    def pre_tokenize(text):
        pieces = []
        for part in split_keeping(DIGIT, text):
            pieces.extend(split_keeping(GPT2, part))
        return pieces


def split_keeping(pattern, text):
    """The text cut at each match, the matches kept as pieces of their own (Hugging Face's
    Split with the "isolated" behaviour)."""
    out, at = [], 0
    for m in pattern.finditer(text):
        if m.start() > at:
            out.append(text[at:m.start()])
        if m.end() > m.start():
            out.append(m.group())
        at = m.end()
    if at < len(text):
        out.append(text[at:])
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folder")
    p.add_argument("--gguf")
    p.add_argument("--text", action="append", default=[])
    args = p.parse_args()
    import onnxruntime_genai as og
    from tokenizers import Tokenizer

    sys.path.insert(0, __import__("os").path.dirname(__file__))
    from make_smollm2 import gguf_path

    ours = Tokenizer.from_file(f"{args.folder}/tokenizer.json")
    genai = og.Tokenizer(og.Config(args.folder)) if hasattr(og, "Config") else og.Tokenizer(og.Model(args.folder))
    reference = GgufBpe(args.gguf or gguf_path())
    texts = list(FIXED)
    for f in args.text:
        with open(f, encoding="utf-8") as fh:
            texts += [line for line in fh.read().splitlines() if line.strip()]
            fh.seek(0)
            texts.append(fh.read())
    rng = random.Random(0)
    texts += ["".join(rng.choice(PIECES) for _ in range(rng.randint(1, 12))) for _ in range(2000)]
    differ = {"genai": 0, "gguf": 0}
    for text in texts:
        ids = ours.encode(text).ids
        for name, other in (("genai", [int(i) for i in genai.encode(text)]), ("gguf", reference.encode(text))):
            if other != ids:
                differ[name] += 1
                if differ[name] <= 5:
                    print(f"DIFFERS ({name}): {text!r}\n  tokenizer.json {ids}\n  {name:14} {other}")
    print(f"smollm2 tokenizer: {len(texts)} texts; tokenizer.json against genai's tokenizer: {differ['genai']} differ; "
          f"against the GGUF's BPE read here: {differ['gguf']} differ")
    return 1 if any(differ.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
