"""Encode mono audio as a 16-bit PCM WAV file with the standard library's `wave`."""
import io
import wave

import numpy as np


def encode_wav(samples, sample_rate):
    """WAV bytes of 1-d samples in [-1, 1] (values outside are clipped), mono, 16-bit.

    Samples are scaled by 32767 and truncated toward zero, as PyTorch's writer does.
    """
    samples = np.clip(np.asarray(samples, dtype=np.float64), -1.0, 1.0)
    pcm = (samples * np.iinfo(np.int16).max).astype("<i2")
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(int(sample_rate))
        wav.writeframes(pcm.tobytes())
    return buffer.getvalue()
