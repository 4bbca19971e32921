"""The profiler's text table, laid out as PyTorch's (profiler_util's table): Name,
Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg, [CPU Mem, Self CPU Mem],
# of Calls, [Input Shapes], then "Self CPU time total"."""
from ._format import format_memory, format_time_in, format_time_share

_COLUMN_WIDTH = 12
_SPACING = 2


def _sort_key(sort_by):
    attr = sort_by
    for device in ("cuda", "xpu", "privateuse1"):  # PyTorch's device-neutral names
        attr = attr.replace(device, "device")
    return lambda event: getattr(event, attr)


def build_table(events, sort_by=None, header=None, row_limit=100, max_name_column_width=55,
                max_shapes_column_width=80, profile_memory=False, top_level_events_only=False,
                time_unit=None):
    if len(events) == 0:
        return ""
    events = list(events)
    if sort_by is not None:
        events.sort(key=_sort_key(sort_by), reverse=True)
    has_shapes = any(e.input_shapes for e in events)
    has_device_memory = any(e.self_device_memory_usage > 0 for e in events)

    name_width = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_width = min(name_width, max_name_column_width)
    shapes_width = max(len(str(e.input_shapes)) for e in events) + 4
    if max_shapes_column_width is not None:
        shapes_width = min(shapes_width, max_shapes_column_width)

    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
        if has_device_memory:
            headers += ["CUDA Mem", "Self CUDA Mem"]
    headers.append("# of Calls")
    widths = [name_width] + [_COLUMN_WIDTH] * (len(headers) - 1)
    if has_shapes:
        headers.append("Input Shapes")
        widths.append(shapes_width)
    row_format = "".join("{: >" + str(w) + "}" + " " * _SPACING for w in widths)
    separator = "".join("-" * w + " " * _SPACING for w in widths)
    line_length = sum(w + _SPACING for w in widths) - _SPACING

    total_self_us = sum(e.self_cpu_time_total for e in events)
    lines = []
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [separator, row_format.format(*headers), separator]

    shown = 0
    for event in events:
        if shown == row_limit:
            break
        if top_level_events_only and event.cpu_parent is not None:
            continue
        shown += 1
        name = event.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[: max_name_column_width - 3] + "..."
        row = [
            name,
            format_time_share(event.self_cpu_time_total, total_self_us),
            format_time_in(event.self_cpu_time_total, time_unit),
            format_time_share(event.cpu_time_total, total_self_us),
            format_time_in(event.cpu_time_total, time_unit),
            format_time_in(event.cpu_time, time_unit),
        ]
        if profile_memory:
            row += [format_memory(event.cpu_memory_usage),
                    format_memory(event.self_cpu_memory_usage)]
            if has_device_memory:
                row += [format_memory(event.device_memory_usage),
                        format_memory(event.self_device_memory_usage)]
        row.append(event.count)
        if has_shapes:
            row.append(str(event.input_shapes)[:shapes_width])
        lines.append(row_format.format(*row))
    lines.append(separator)
    lines.append(f"Self CPU time total: {format_time_in(total_self_us, time_unit)}")
    return "\n".join(lines) + "\n"
