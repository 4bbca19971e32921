"""The three summaries of TensorBoard's HParams plugin, for SummaryWriter.add_hparams.

A run's hyperparameters reach the HParams dashboard as Summary values with no
payload of their own, only SummaryMetadata whose plugin_data is
("hparams", serialized HParamsPluginData). Three are written, each under its own
fixed tag:
- "_hparams_/experiment": the Experiment, listing each hyperparameter's name, type
  and (optionally) its discrete domain, and the metric tags;
- "_hparams_/session_start_info": this run's hyperparameter values (a map from name
  to google.protobuf.Value);
- "_hparams_/session_end_info": the run's status, STATUS_SUCCESS.

Field numbers are those of tensorboard/plugins/hparams/{plugin_data,api}.proto and
google/protobuf/struct.proto. As in PyTorch, bool hyperparameters are ints to
Python, so they are recorded as numbers (1.0 / 0.0) of type DATA_TYPE_FLOAT64.
"""
import numbers

from . import _proto
from ._summaries import plugin_metadata_field, summary_of_value, to_numpy

EXPERIMENT_TAG = "_hparams_/experiment"
SESSION_START_INFO_TAG = "_hparams_/session_start_info"
SESSION_END_INFO_TAG = "_hparams_/session_end_info"

# HParamsPluginData
_DATA_EXPERIMENT, _DATA_SESSION_START_INFO, _DATA_SESSION_END_INFO = 2, 3, 4
# Experiment / HParamInfo / MetricInfo / MetricName
_EXPERIMENT_HPARAM_INFOS, _EXPERIMENT_METRIC_INFOS = 4, 5
_HPARAM_INFO_NAME, _HPARAM_INFO_TYPE, _HPARAM_INFO_DOMAIN_DISCRETE = 1, 4, 5
_METRIC_INFO_NAME, _METRIC_NAME_TAG = 1, 2
# SessionStartInfo (map<string, Value> hparams = 1: entries with key 1, value 2)
_START_HPARAMS, _MAP_KEY, _MAP_VALUE = 1, 1, 2
# SessionEndInfo
_END_STATUS, STATUS_SUCCESS = 1, 1
# google.protobuf.Value / ListValue
_VALUE_NUMBER, _VALUE_STRING, _VALUE_BOOL = 2, 3, 4
_LIST_VALUES = 1
# hparams DataType
DATA_TYPE_STRING, DATA_TYPE_FLOAT64 = 1, 3


def _number_value(number):
    return _proto.double_field(_VALUE_NUMBER, number)


def _string_value(text):
    return _proto.string_field(_VALUE_STRING, text)


def _is_number(value):
    return isinstance(value, numbers.Real)


def _hparam_value_and_type(name, value):
    """(encoded google.protobuf.Value, DataType) of one hyperparameter."""
    if isinstance(value, str):
        return _string_value(value), DATA_TYPE_STRING
    if _is_number(value):
        return _number_value(float(value)), DATA_TYPE_FLOAT64
    if hasattr(value, "detach") and hasattr(value, "numpy"):  # an ember tensor
        array = to_numpy(value, "add_hparams")
        if array.size != 1 or array.dtype.kind not in "biuf":
            raise ValueError(f"SummaryWriter.add_hparams: hparam {name!r} is a tensor of shape "
                             f"{tuple(array.shape)} and dtype {array.dtype}; only one-element "
                             "real tensors can be hyperparameters")
        return _number_value(float(array.reshape(-1)[0])), DATA_TYPE_FLOAT64
    raise ValueError(f"SummaryWriter.add_hparams: hparam {name!r} is a {type(value).__name__}; "
                     "values should be one of int, float, str, bool, or a one-element tensor")


def _check_domains(hparam_dict, domains):
    if not isinstance(domains, dict):
        raise TypeError("SummaryWriter.add_hparams: hparam_domain_discrete should be a dict, "
                        f"got {type(domains).__name__}")
    for name, domain in domains.items():
        if (name not in hparam_dict or not isinstance(domain, list)
                or not all(isinstance(d, type(hparam_dict[name])) for d in domain)):
            raise TypeError(f"SummaryWriter.add_hparams: hparam_domain_discrete[{name!r}] should be "
                            f"a list of values of the same type as hparam_dict[{name!r}]")


def _hparams_summary(tag, plugin_data_field):
    return summary_of_value(_proto.string_field(1, tag)
                            + plugin_metadata_field("hparams", plugin_data_field))


def hparams_summaries(hparam_dict, metric_dict, hparam_domain_discrete=None):
    """(experiment, session_start_info, session_end_info) serialized Summary messages."""
    if not isinstance(hparam_dict, dict):
        raise TypeError(f"SummaryWriter.add_hparams: hparam_dict should be a dict, got {type(hparam_dict).__name__}")
    if not isinstance(metric_dict, dict):
        raise TypeError(f"SummaryWriter.add_hparams: metric_dict should be a dict, got {type(metric_dict).__name__}")
    for name in hparam_dict:
        if not isinstance(name, str):
            raise TypeError(f"SummaryWriter.add_hparams: hparam names must be str, got {type(name).__name__}")
    domains = hparam_domain_discrete or {}
    _check_domains(hparam_dict, domains)

    hparam_infos, start_entries = [], []
    for name, value in hparam_dict.items():
        if value is None:
            continue
        encoded_value, data_type = _hparam_value_and_type(name, value)
        start_entries.append(_proto.bytes_field(_START_HPARAMS, _proto.string_field(_MAP_KEY, name)
                                                + _proto.bytes_field(_MAP_VALUE, encoded_value)))
        info = _proto.string_field(_HPARAM_INFO_NAME, name) + _proto.varint_field(_HPARAM_INFO_TYPE, data_type)
        if name in domains:
            encode = _string_value if data_type == DATA_TYPE_STRING else (lambda d: _number_value(float(d)))
            domain = b"".join(_proto.bytes_field(_LIST_VALUES, encode(d)) for d in domains[name])
            info += _proto.bytes_field(_HPARAM_INFO_DOMAIN_DISCRETE, domain)
        hparam_infos.append(_proto.bytes_field(_EXPERIMENT_HPARAM_INFOS, info))
    metric_infos = [
        _proto.bytes_field(_EXPERIMENT_METRIC_INFOS, _proto.bytes_field(
            _METRIC_INFO_NAME, _proto.string_field(_METRIC_NAME_TAG, str(tag))))
        for tag in metric_dict]

    experiment = _proto.bytes_field(_DATA_EXPERIMENT, b"".join(hparam_infos + metric_infos))
    session_start = _proto.bytes_field(_DATA_SESSION_START_INFO, b"".join(start_entries))
    session_end = _proto.bytes_field(_DATA_SESSION_END_INFO, _proto.varint_field(_END_STATUS, STATUS_SUCCESS))
    return (_hparams_summary(EXPERIMENT_TAG, experiment),
            _hparams_summary(SESSION_START_INFO_TAG, session_start),
            _hparams_summary(SESSION_END_INFO_TAG, session_end))
