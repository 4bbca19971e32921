"""``python -m ember.distributed.launch``: torch.distributed.launch, the launcher before
torchrun (deprecated there as here). The same launcher as ember.distributed.run, except
that, without ``--use-env``, each worker's script also gets ``--local-rank=N`` as its
first argument, as torch.distributed.launch passes it. New code should use
``python -m ember.distributed.run`` and read LOCAL_RANK from the environment.
"""
import sys
import warnings

from .run import get_args_parser, main as _run_main


def _parser():
    parser = get_args_parser("python -m ember.distributed.launch")
    parser.add_argument("--use-env", "--use_env", dest="use_env", action="store_true",
                        help="do not pass --local-rank to the script: it reads LOCAL_RANK from "
                             "the environment")
    return parser


def main(argv=None):
    warnings.warn("ember.distributed.launch is deprecated, as torch.distributed.launch is: use "
                  "python -m ember.distributed.run (torchrun's equivalent)", FutureWarning,
                  stacklevel=2)
    _run_main(argv, parser=_parser())


if __name__ == "__main__":
    main(sys.argv[1:])
