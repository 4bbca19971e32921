"""SummaryWriter: PyTorch's `torch.utils.tensorboard.SummaryWriter`, with no dependency.

It writes TensorBoard event files itself (see event_file.py for the framing and
buffering, _summaries.py for the messages), so `tensorboard` only needs to be
installed where the logs are viewed.
"""
import os
import socket
import time
from datetime import datetime

import numpy as np

from .event_file import EventFileWriter, SESSION_LOG_START, encode_event, encode_session_log
from . import _summaries
from ._hparams import hparams_summaries
from ._image_layout import figure_pixels_chw, image_pixels


def _default_log_dir(comment):
    stamp = datetime.now().strftime("%b%d_%H-%M-%S")
    return os.path.join("runs", stamp + "_" + socket.gethostname() + comment)


def _check_tag(tag, op_name, what="tag"):
    if not isinstance(tag, str):
        raise TypeError(f"SummaryWriter.{op_name}: {what} must be a str, got {type(tag).__name__}")


class SummaryWriter:
    """Writes scalars, histograms, images, figures, audio, PR curves, text and
    hyperparameters to `log_dir` for TensorBoard.

    Records are buffered and reach the file when `max_queue` are waiting, every
    `flush_secs` seconds (a daemon thread), on `flush()` and on `close()`.
    """

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10,
                 flush_secs=120, filename_suffix=""):
        if log_dir is None:
            log_dir = _default_log_dir(comment)
        self.log_dir = str(log_dir)
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer = None
        self.all_writers = None
        self._get_file_writer()

    def _new_event_file(self, log_dir):
        return EventFileWriter(log_dir, self.max_queue, self.flush_secs, self.filename_suffix)

    def _get_file_writer(self):
        """The main event file, reopened (as a new file) if the writer was closed."""
        if self.file_writer is None:
            self.file_writer = self._new_event_file(self.log_dir)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                # A START session log at step `purge_step` tells TensorBoard to drop the
                # events of an earlier, crashed run from that step on.
                step = int(self.purge_step)
                self.file_writer.add_event(encode_event(time.time(), step=step, file_version="brain.Event:2"))
                self.file_writer.add_event(encode_event(
                    time.time(), step=step, session_log=encode_session_log(SESSION_LOG_START)))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self):
        return self.log_dir

    def _add_summary(self, summary, global_step, walltime, file_writer=None):
        wall_time = time.time() if walltime is None else float(walltime)
        step = None if global_step is None else int(global_step)
        event = encode_event(wall_time, step=step, summary=summary)
        (file_writer or self._get_file_writer()).add_event(event)

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None,
                   new_style=False, double_precision=False):
        _check_tag(tag, "add_scalar")
        summary = _summaries.scalar_summary(tag, scalar_value, new_style, double_precision)
        self._add_summary(summary, global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Each sub-tag goes to its own event file in `<log_dir>/<main_tag>_<sub-tag>`
        (slashes in main_tag become underscores), all under the tag `main_tag`, which
        TensorBoard draws as one chart with a line per sub-tag."""
        _check_tag(main_tag, "add_scalars", "main_tag")
        if not isinstance(tag_scalar_dict, dict):
            raise TypeError("SummaryWriter.add_scalars: tag_scalar_dict must be a dict, got "
                            f"{type(tag_scalar_dict).__name__}")
        for name in tag_scalar_dict:
            _check_tag(name, "add_scalars", "each key of tag_scalar_dict")
        walltime = time.time() if walltime is None else walltime
        summaries = {name: _summaries.scalar_summary(main_tag, _summaries.scalar_value_of(
            value, "add_scalars")) for name, value in tag_scalar_dict.items()}
        root = self._get_file_writer().get_logdir()
        for name, summary in summaries.items():
            sub_dir = root + "/" + main_tag.replace("/", "_") + "_" + name
            writer = self.all_writers.get(sub_dir)
            if writer is None:
                writer = self._new_event_file(sub_dir)
                self.all_writers[sub_dir] = writer
            self._add_summary(summary, global_step, walltime, writer)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow",
                      walltime=None, max_bins=None):
        _check_tag(tag, "add_histogram")
        summary = _summaries.histogram_summary(tag, values, bins, max_bins)
        self._add_summary(summary, global_step, walltime)

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        _check_tag(tag, "add_image")
        pixels = image_pixels(_summaries.to_numpy(img_tensor, "add_image"), dataformats, "add_image")
        self._add_summary(_summaries.image_summary(tag, pixels), global_step, walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None, dataformats="NCHW"):
        """A batch of images, tiled into one grid at most 8 images wide."""
        _check_tag(tag, "add_images")
        pixels = image_pixels(_summaries.to_numpy(img_tensor, "add_images"), dataformats, "add_images")
        self._add_summary(_summaries.image_summary(tag, pixels), global_step, walltime)

    def add_figure(self, tag, figure, global_step=None, close=True, walltime=None):
        """A matplotlib figure (or a list of them, tiled like add_images) as an RGB image."""
        _check_tag(tag, "add_figure")
        figures = list(figure) if isinstance(figure, (list, tuple)) else [figure]
        if not figures:
            raise ValueError("SummaryWriter.add_figure: the list of figures is empty")
        rendered = [figure_pixels_chw(f) for f in figures]
        if len({r.shape for r in rendered}) != 1:
            raise ValueError("SummaryWriter.add_figure: figures of different pixel sizes "
                             f"cannot be tiled: {[r.shape[1:] for r in rendered]}")
        if close:
            import matplotlib.pyplot as plt
            for f in figures:
                plt.close(f)
        if isinstance(figure, (list, tuple)):
            self.add_images(tag, np.stack(rendered), global_step, walltime, dataformats="NCHW")
        else:
            self.add_image(tag, rendered[0], global_step, walltime, dataformats="CHW")

    def add_audio(self, tag, snd_tensor, global_step=None, sample_rate=44100, walltime=None):
        """Mono audio with samples in [-1, 1] (clipped), stored as 16-bit WAV."""
        _check_tag(tag, "add_audio")
        summary = _summaries.audio_summary(tag, snd_tensor, sample_rate)
        self._add_summary(summary, global_step, walltime)

    def add_pr_curve(self, tag, labels, predictions, global_step=None, num_thresholds=127,
                     weights=None, walltime=None):
        """A precision-recall curve of binary `labels` against `predictions` in [0, 1]
        (see _pr_curve.py); num_thresholds is capped at 127, as in PyTorch."""
        _check_tag(tag, "add_pr_curve")
        summary = _summaries.pr_curve_summary(tag, labels, predictions, num_thresholds, weights)
        self._add_summary(summary, global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        _check_tag(tag, "add_text")
        self._add_summary(_summaries.text_summary(tag, text_string), global_step, walltime)

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None,
                    run_name=None, global_step=None):
        """One run of the HParams dashboard, written (as PyTorch does) by a separate
        writer in `<log_dir>/<run_name>` (default: the current time): the experiment,
        session start/end summaries, then each metric as a scalar."""
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("SummaryWriter.add_hparams: hparam_dict and metric_dict should be "
                            f"dicts, got {type(hparam_dict).__name__} and {type(metric_dict).__name__}")
        for tag in metric_dict:
            _check_tag(tag, "add_hparams", "each key of metric_dict")
        summaries = hparams_summaries(hparam_dict, metric_dict, hparam_domain_discrete)
        metric_values = {tag: _summaries.scalar_value_of(value, "add_hparams")
                         for tag, value in metric_dict.items()}
        run_dir = os.path.join(self._get_file_writer().get_logdir(), run_name or str(time.time()))
        with SummaryWriter(log_dir=run_dir) as run_writer:
            for summary in summaries:
                run_writer._add_summary(summary, global_step, None)
            for tag, value in metric_values.items():
                run_writer.add_scalar(tag, value, global_step)

    def flush(self):
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()

    def close(self):
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self.close()
