_dmlrun() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="dmlrun"
                ;;
            dmlrun,bench)
                cmd="dmlrun__subcmd__bench"
                ;;
            dmlrun,completions)
                cmd="dmlrun__subcmd__completions"
                ;;
            dmlrun,devices)
                cmd="dmlrun__subcmd__devices"
                ;;
            dmlrun,doctor)
                cmd="dmlrun__subcmd__doctor"
                ;;
            dmlrun,fix)
                cmd="dmlrun__subcmd__fix"
                ;;
            dmlrun,generate)
                cmd="dmlrun__subcmd__generate"
                ;;
            dmlrun,help)
                cmd="dmlrun__subcmd__help"
                ;;
            dmlrun,info)
                cmd="dmlrun__subcmd__info"
                ;;
            dmlrun,man)
                cmd="dmlrun__subcmd__man"
                ;;
            dmlrun,merge)
                cmd="dmlrun__subcmd__merge"
                ;;
            dmlrun,reduce)
                cmd="dmlrun__subcmd__reduce"
                ;;
            dmlrun,run)
                cmd="dmlrun__subcmd__run"
                ;;
            dmlrun,test)
                cmd="dmlrun__subcmd__test"
                ;;
            dmlrun,tune)
                cmd="dmlrun__subcmd__tune"
                ;;
            dmlrun__subcmd__help,bench)
                cmd="dmlrun__subcmd__help__subcmd__bench"
                ;;
            dmlrun__subcmd__help,completions)
                cmd="dmlrun__subcmd__help__subcmd__completions"
                ;;
            dmlrun__subcmd__help,devices)
                cmd="dmlrun__subcmd__help__subcmd__devices"
                ;;
            dmlrun__subcmd__help,doctor)
                cmd="dmlrun__subcmd__help__subcmd__doctor"
                ;;
            dmlrun__subcmd__help,fix)
                cmd="dmlrun__subcmd__help__subcmd__fix"
                ;;
            dmlrun__subcmd__help,generate)
                cmd="dmlrun__subcmd__help__subcmd__generate"
                ;;
            dmlrun__subcmd__help,help)
                cmd="dmlrun__subcmd__help__subcmd__help"
                ;;
            dmlrun__subcmd__help,info)
                cmd="dmlrun__subcmd__help__subcmd__info"
                ;;
            dmlrun__subcmd__help,man)
                cmd="dmlrun__subcmd__help__subcmd__man"
                ;;
            dmlrun__subcmd__help,merge)
                cmd="dmlrun__subcmd__help__subcmd__merge"
                ;;
            dmlrun__subcmd__help,reduce)
                cmd="dmlrun__subcmd__help__subcmd__reduce"
                ;;
            dmlrun__subcmd__help,run)
                cmd="dmlrun__subcmd__help__subcmd__run"
                ;;
            dmlrun__subcmd__help,test)
                cmd="dmlrun__subcmd__help__subcmd__test"
                ;;
            dmlrun__subcmd__help,tune)
                cmd="dmlrun__subcmd__help__subcmd__tune"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        dmlrun)
            opts="-i -q -v -h -V --input --generate --seed --free-dim-size --generate-range --max-tensor-bytes --max-image-pixels --preset --resize --resize-to --filter --scale --mean --std --channel-order --layout --pad-value --image-size --dim --shape --dim-denotation --no-auto-dims --ep --device --dml-performance-preference --dml-device-filter --dml-disable-metacommands --ep-option --opt-level --intra-threads --inter-threads --execution-mode --memory-pattern --session-config --precision --keep-fp32 --block-size --asymmetric --accuracy-level --decompose --inline-if --gemm-zero-bias --reshape-allowzero-off --binary-as-reduce --dequantize-gather --matmulnbits-bias-add --matmulnbits-drop-g-idx --dequantize-matmulnbits --drop-qdq-pair --matmul-as-mul-reducesum --fuse-sibling-matmuls --matmulnbits-accuracy-level --print-plan --io-on-device --dml-graph-capture --warmup --iterations --compare-ep --compare-opt-level --rtol --atol --timeout --top-k --labels --save-outputs --as-test-data --save-model --save-fixed-dims --save-inputs --save-format --json --quiet --verbose --ort-lib --ep-library --ort-log-level --color --help --version run test bench reduce fix tune generate merge info devices doctor completions man help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --input)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -i)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --generate)
                    COMPREPLY=($(compgen -W "random zeros ones" -- "${cur}"))
                    return 0
                    ;;
                --seed)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --free-dim-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --generate-range)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-tensor-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-image-pixels)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --preset)
                    COMPREPLY=($(compgen -W "imagenet unit raw" -- "${cur}"))
                    return 0
                    ;;
                --resize)
                    COMPREPLY=($(compgen -W "crop stretch letterbox center-crop none" -- "${cur}"))
                    return 0
                    ;;
                --resize-to)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --filter)
                    COMPREPLY=($(compgen -W "bilinear bicubic" -- "${cur}"))
                    return 0
                    ;;
                --scale)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mean)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --std)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --channel-order)
                    COMPREPLY=($(compgen -W "rgb bgr" -- "${cur}"))
                    return 0
                    ;;
                --layout)
                    COMPREPLY=($(compgen -W "nchw nhwc" -- "${cur}"))
                    return 0
                    ;;
                --pad-value)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --image-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dim)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --shape)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dim-denotation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ep)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --device)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dml-performance-preference)
                    COMPREPLY=($(compgen -W "default high-performance minimum-power" -- "${cur}"))
                    return 0
                    ;;
                --dml-device-filter)
                    COMPREPLY=($(compgen -W "gpu npu any" -- "${cur}"))
                    return 0
                    ;;
                --ep-option)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --opt-level)
                    COMPREPLY=($(compgen -W "disable basic extended all" -- "${cur}"))
                    return 0
                    ;;
                --intra-threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --inter-threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --execution-mode)
                    COMPREPLY=($(compgen -W "sequential parallel" -- "${cur}"))
                    return 0
                    ;;
                --memory-pattern)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --precision)
                    COMPREPLY=($(compgen -W "fp32 fp16 int4 int8" -- "${cur}"))
                    return 0
                    ;;
                --keep-fp32)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --block-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --accuracy-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --decompose)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --warmup)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --iterations)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --compare-ep)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --compare-opt-level)
                    COMPREPLY=($(compgen -W "disable basic extended all" -- "${cur}"))
                    return 0
                    ;;
                --rtol)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --atol)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --top-k)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --labels)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --save-outputs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --save-model)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --save-inputs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --save-format)
                    COMPREPLY=($(compgen -W "npy npz pb" -- "${cur}"))
                    return 0
                    ;;
                --json)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ort-lib)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ep-library)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ort-log-level)
                    COMPREPLY=($(compgen -W "verbose info warning error fatal" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        dmlrun__subcmd__bench)
            opts="-q -h --generate --seed --free-dim-size --generate-range --max-tensor-bytes --max-image-pixels --dim --shape --dim-denotation --no-auto-dims --ep --device --dml-performance-preference --dml-device-filter --dml-disable-metacommands --ep-option --opt-level --intra-threads --inter-threads --execution-mode --memory-pattern --session-config --precision --keep-fp32 --block-size --asymmetric --accuracy-level --decompose --inline-if --gemm-zero-bias --reshape-allowzero-off --binary-as-reduce --dequantize-gather --matmulnbits-bias-add --matmulnbits-drop-g-idx --dequantize-matmulnbits --drop-qdq-pair --matmul-as-mul-reducesum --fuse-sibling-matmuls --matmulnbits-accuracy-level --print-plan --io-on-device --dml-graph-capture --iterations --duration --min-iterations --max-iterations --warmup --sessions --sweep --sweep-shape --profile --profile-unfused --cache --compare-ep --compare-opt-level --rtol --atol --baseline --baseline-model --max-regression --rounds --shard --isolation --timeout --child-report --progress --preflight --json --csv --markdown --html --junit --save-models --save-fixed-dims --quiet --ci --ort-lib --ep-library --ort-log-level --color --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --generate)
                    COMPREPLY=($(compgen -W "random zeros ones" -- "${cur}"))
                    return 0
                    ;;
                --seed)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --free-dim-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --generate-range)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-tensor-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-image-pixels)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dim)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --shape)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dim-denotation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ep)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --device)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dml-performance-preference)
                    COMPREPLY=($(compgen -W "default high-performance minimum-power" -- "${cur}"))
                    return 0
                    ;;
                --dml-device-filter)
                    COMPREPLY=($(compgen -W "gpu npu any" -- "${cur}"))
                    return 0
                    ;;
                --ep-option)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --opt-level)
                    COMPREPLY=($(compgen -W "disable basic extended all" -- "${cur}"))
                    return 0
                    ;;
                --intra-threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --inter-threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --execution-mode)
                    COMPREPLY=($(compgen -W "sequential parallel" -- "${cur}"))
                    return 0
                    ;;
                --memory-pattern)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --precision)
                    COMPREPLY=($(compgen -W "fp32 fp16 int4 int8" -- "${cur}"))
                    return 0
                    ;;
                --keep-fp32)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --block-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --accuracy-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --decompose)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --iterations)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --duration)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --min-iterations)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-iterations)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --warmup)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sessions)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sweep)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sweep-shape)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --profile)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cache)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --compare-ep)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --compare-opt-level)
                    COMPREPLY=($(compgen -W "disable basic extended all" -- "${cur}"))
                    return 0
                    ;;
                --rtol)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --atol)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --baseline)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --baseline-model)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-regression)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --rounds)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --shard)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --isolation)
                    COMPREPLY=($(compgen -W "auto process none" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --child-report)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --progress)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --preflight)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --json)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --csv)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --markdown)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --html)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --junit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --save-models)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ci)
                    COMPREPLY=($(compgen -W "auto github none" -- "${cur}"))
                    return 0
                    ;;
                --ort-lib)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ep-library)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ort-log-level)
                    COMPREPLY=($(compgen -W "verbose info warning error fatal" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        dmlrun__subcmd__completions)
            opts="-h --color --help bash elvish fish powershell zsh"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        dmlrun__subcmd__devices)
            opts="-h --json --ort-lib --ep-library --ort-log-level --color --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --json)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ort-lib)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ep-library)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ort-log-level)
                    COMPREPLY=($(compgen -W "verbose info warning error fatal" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        dmlrun__subcmd__doctor)
            opts="-h --json --ort-lib --ep-library --ort-log-level --color --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --json)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ort-lib)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ep-library)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ort-log-level)
                    COMPREPLY=($(compgen -W "verbose info warning error fatal" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        dmlrun__subcmd__fix)
            opts="-i -o -q -h --input --generate --seed --free-dim-size --generate-range --max-tensor-bytes --max-image-pixels --preset --resize --resize-to --filter --scale --mean --std --channel-order --layout --pad-value --image-size --dim --shape --dim-denotation --no-auto-dims --ep --device --dml-performance-preference --dml-device-filter --dml-disable-metacommands --ep-option --opt-level --intra-threads --inter-threads --execution-mode --memory-pattern --session-config --precision --keep-fp32 --block-size --asymmetric --accuracy-level --decompose --inline-if --gemm-zero-bias --reshape-allowzero-off --binary-as-reduce --dequantize-gather --matmulnbits-bias-add --matmulnbits-drop-g-idx --dequantize-matmulnbits --drop-qdq-pair --matmul-as-mul-reducesum --fuse-sibling-matmuls --matmulnbits-accuracy-level --print-plan --compare-ep --rtol --atol --isolation --timeout --child-report --progress --preflight --output --write-unchanged --save-fixed-dims --json --quiet --ort-lib --ep-library --ort-log-level --color --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --input)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -i)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --generate)
                    COMPREPLY=($(compgen -W "random zeros ones" -- "${cur}"))
                    return 0
                    ;;
                --seed)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --free-dim-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --generate-range)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-tensor-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-image-pixels)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --preset)
                    COMPREPLY=($(compgen -W "imagenet unit raw" -- "${cur}"))
                    return 0
                    ;;
                --resize)
                    COMPREPLY=($(compgen -W "crop stretch letterbox center-crop none" -- "${cur}"))
                    return 0
                    ;;
                --resize-to)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --filter)
                    COMPREPLY=($(compgen -W "bilinear bicubic" -- "${cur}"))
                    return 0
                    ;;
                --scale)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mean)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --std)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --channel-order)
                    COMPREPLY=($(compgen -W "rgb bgr" -- "${cur}"))
                    return 0
                    ;;
                --layout)
                    COMPREPLY=($(compgen -W "nchw nhwc" -- "${cur}"))
                    return 0
                    ;;
                --pad-value)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --image-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dim)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --shape)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dim-denotation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ep)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --device)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dml-performance-preference)
                    COMPREPLY=($(compgen -W "default high-performance minimum-power" -- "${cur}"))
                    return 0
                    ;;
                --dml-device-filter)
                    COMPREPLY=($(compgen -W "gpu npu any" -- "${cur}"))
                    return 0
                    ;;
                --ep-option)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --opt-level)
                    COMPREPLY=($(compgen -W "disable basic extended all" -- "${cur}"))
                    return 0
                    ;;
                --intra-threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --inter-threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --execution-mode)
                    COMPREPLY=($(compgen -W "sequential parallel" -- "${cur}"))
                    return 0
                    ;;
                --memory-pattern)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --precision)
                    COMPREPLY=($(compgen -W "fp32 fp16 int4 int8" -- "${cur}"))
                    return 0
                    ;;
                --keep-fp32)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --block-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --accuracy-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --decompose)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --compare-ep)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --rtol)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --atol)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --isolation)
                    COMPREPLY=($(compgen -W "auto process none" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --child-report)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --progress)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --preflight)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --json)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ort-lib)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ep-library)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ort-log-level)
                    COMPREPLY=($(compgen -W "verbose info warning error fatal" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        dmlrun__subcmd__generate)
            opts="-p -n -v -q -h --prompt --prompt-file --prompt-tokens --prompt-ids --chat --system --perplexity --window --stride --tokenizer --dim --shape --dim-denotation --no-auto-dims --ep --device --dml-performance-preference --dml-device-filter --dml-disable-metacommands --ep-option --opt-level --intra-threads --inter-threads --execution-mode --memory-pattern --session-config --keep-fp32 --block-size --asymmetric --accuracy-level --decompose --inline-if --gemm-zero-bias --reshape-allowzero-off --binary-as-reduce --dequantize-gather --matmulnbits-bias-add --matmulnbits-drop-g-idx --dequantize-matmulnbits --drop-qdq-pair --matmul-as-mul-reducesum --fuse-sibling-matmuls --matmulnbits-accuracy-level --print-plan --io-on-device --dml-graph-capture --max-new-tokens --max-length --context-length --kv-layout --no-dml-graph-capture --decode-rewrite --choose-on-host --ignore-eos --sample --temperature --top-k --top-p --repetition-penalty --no-repeat-ngram --seed --iterations --warmup --compare-ep --compare-opt-level --no-blame --timeout --save-model --json --csv --markdown --html --junit --verbose --quiet --ci --ort-lib --ep-library --ort-log-level --precision --color --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --prompt)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -p)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prompt-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prompt-tokens)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prompt-ids)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --system)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --perplexity)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --window)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stride)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tokenizer)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dim)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --shape)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dim-denotation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ep)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --device)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dml-performance-preference)
                    COMPREPLY=($(compgen -W "default high-performance minimum-power" -- "${cur}"))
                    return 0
                    ;;
                --dml-device-filter)
                    COMPREPLY=($(compgen -W "gpu npu any" -- "${cur}"))
                    return 0
                    ;;
                --ep-option)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --opt-level)
                    COMPREPLY=($(compgen -W "disable basic extended all" -- "${cur}"))
                    return 0
                    ;;
                --intra-threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --inter-threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --execution-mode)
                    COMPREPLY=($(compgen -W "sequential parallel" -- "${cur}"))
                    return 0
                    ;;
                --memory-pattern)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --keep-fp32)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --block-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --accuracy-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --decompose)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-new-tokens)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-length)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context-length)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kv-layout)
                    COMPREPLY=($(compgen -W "shared growing" -- "${cur}"))
                    return 0
                    ;;
                --decode-rewrite)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --temperature)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --top-k)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --top-p)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --repetition-penalty)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --no-repeat-ngram)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --seed)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --iterations)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --warmup)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --compare-ep)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --compare-opt-level)
                    COMPREPLY=($(compgen -W "disable basic extended all" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --save-model)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --json)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --csv)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --markdown)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --html)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --junit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ci)
                    COMPREPLY=($(compgen -W "auto github none" -- "${cur}"))
                    return 0
                    ;;
                --ort-lib)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ep-library)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ort-log-level)
                    COMPREPLY=($(compgen -W "verbose info warning error fatal" -- "${cur}"))
                    return 0
                    ;;
                --precision)
                    COMPREPLY=($(compgen -W "fp32 int4 int8" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        dmlrun__subcmd__help)
            opts="run test bench reduce fix tune generate merge info devices doctor completions man help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        dmlrun__subcmd__help__subcmd__bench)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        dmlrun__subcmd__help__subcmd__completions)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        dmlrun__subcmd__help__subcmd__devices)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        dmlrun__subcmd__help__subcmd__doctor)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        dmlrun__subcmd__help__subcmd__fix)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        dmlrun__subcmd__help__subcmd__generate)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        dmlrun__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        dmlrun__subcmd__help__subcmd__info)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        dmlrun__subcmd__help__subcmd__man)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        dmlrun__subcmd__help__subcmd__merge)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        dmlrun__subcmd__help__subcmd__reduce)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        dmlrun__subcmd__help__subcmd__run)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        dmlrun__subcmd__help__subcmd__test)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        dmlrun__subcmd__help__subcmd__tune)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        dmlrun__subcmd__info)
            opts="-h --json --full-metadata --color --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --json)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        dmlrun__subcmd__man)
            opts="-h --color --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        dmlrun__subcmd__merge)
            opts="-h --compare --json --csv --markdown --html --junit --color --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --json)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --csv)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --markdown)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --html)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --junit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        dmlrun__subcmd__reduce)
            opts="-i -o -q -h --input --generate --seed --free-dim-size --generate-range --max-tensor-bytes --max-image-pixels --preset --resize --resize-to --filter --scale --mean --std --channel-order --layout --pad-value --image-size --dim --shape --dim-denotation --no-auto-dims --ep --device --dml-performance-preference --dml-device-filter --dml-disable-metacommands --ep-option --opt-level --intra-threads --inter-threads --execution-mode --memory-pattern --session-config --precision --keep-fp32 --block-size --asymmetric --accuracy-level --decompose --inline-if --gemm-zero-bias --reshape-allowzero-off --binary-as-reduce --dequantize-gather --matmulnbits-bias-add --matmulnbits-drop-g-idx --dequantize-matmulnbits --drop-qdq-pair --matmul-as-mul-reducesum --fuse-sibling-matmuls --matmulnbits-accuracy-level --print-plan --compare-ep --rtol --atol --timeout --candidate-timeout --each-op --output --json --quiet --ort-lib --ep-library --ort-log-level --child-report --progress --preflight --color --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --input)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -i)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --generate)
                    COMPREPLY=($(compgen -W "random zeros ones" -- "${cur}"))
                    return 0
                    ;;
                --seed)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --free-dim-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --generate-range)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-tensor-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-image-pixels)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --preset)
                    COMPREPLY=($(compgen -W "imagenet unit raw" -- "${cur}"))
                    return 0
                    ;;
                --resize)
                    COMPREPLY=($(compgen -W "crop stretch letterbox center-crop none" -- "${cur}"))
                    return 0
                    ;;
                --resize-to)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --filter)
                    COMPREPLY=($(compgen -W "bilinear bicubic" -- "${cur}"))
                    return 0
                    ;;
                --scale)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mean)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --std)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --channel-order)
                    COMPREPLY=($(compgen -W "rgb bgr" -- "${cur}"))
                    return 0
                    ;;
                --layout)
                    COMPREPLY=($(compgen -W "nchw nhwc" -- "${cur}"))
                    return 0
                    ;;
                --pad-value)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --image-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dim)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --shape)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dim-denotation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ep)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --device)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dml-performance-preference)
                    COMPREPLY=($(compgen -W "default high-performance minimum-power" -- "${cur}"))
                    return 0
                    ;;
                --dml-device-filter)
                    COMPREPLY=($(compgen -W "gpu npu any" -- "${cur}"))
                    return 0
                    ;;
                --ep-option)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --opt-level)
                    COMPREPLY=($(compgen -W "disable basic extended all" -- "${cur}"))
                    return 0
                    ;;
                --intra-threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --inter-threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --execution-mode)
                    COMPREPLY=($(compgen -W "sequential parallel" -- "${cur}"))
                    return 0
                    ;;
                --memory-pattern)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --precision)
                    COMPREPLY=($(compgen -W "fp32 fp16 int4 int8" -- "${cur}"))
                    return 0
                    ;;
                --keep-fp32)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --block-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --accuracy-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --decompose)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --compare-ep)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --rtol)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --atol)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --candidate-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --json)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ort-lib)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ep-library)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ort-log-level)
                    COMPREPLY=($(compgen -W "verbose info warning error fatal" -- "${cur}"))
                    return 0
                    ;;
                --child-report)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --progress)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --preflight)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        dmlrun__subcmd__run)
            opts="-i -q -v -h --input --generate --seed --free-dim-size --generate-range --max-tensor-bytes --max-image-pixels --preset --resize --resize-to --filter --scale --mean --std --channel-order --layout --pad-value --image-size --dim --shape --dim-denotation --no-auto-dims --ep --device --dml-performance-preference --dml-device-filter --dml-disable-metacommands --ep-option --opt-level --intra-threads --inter-threads --execution-mode --memory-pattern --session-config --precision --keep-fp32 --block-size --asymmetric --accuracy-level --decompose --inline-if --gemm-zero-bias --reshape-allowzero-off --binary-as-reduce --dequantize-gather --matmulnbits-bias-add --matmulnbits-drop-g-idx --dequantize-matmulnbits --drop-qdq-pair --matmul-as-mul-reducesum --fuse-sibling-matmuls --matmulnbits-accuracy-level --print-plan --io-on-device --dml-graph-capture --warmup --iterations --compare-ep --compare-opt-level --rtol --atol --timeout --top-k --labels --save-outputs --as-test-data --save-model --save-fixed-dims --save-inputs --save-format --json --quiet --verbose --ort-lib --ep-library --ort-log-level --color --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --input)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -i)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --generate)
                    COMPREPLY=($(compgen -W "random zeros ones" -- "${cur}"))
                    return 0
                    ;;
                --seed)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --free-dim-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --generate-range)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-tensor-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-image-pixels)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --preset)
                    COMPREPLY=($(compgen -W "imagenet unit raw" -- "${cur}"))
                    return 0
                    ;;
                --resize)
                    COMPREPLY=($(compgen -W "crop stretch letterbox center-crop none" -- "${cur}"))
                    return 0
                    ;;
                --resize-to)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --filter)
                    COMPREPLY=($(compgen -W "bilinear bicubic" -- "${cur}"))
                    return 0
                    ;;
                --scale)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mean)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --std)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --channel-order)
                    COMPREPLY=($(compgen -W "rgb bgr" -- "${cur}"))
                    return 0
                    ;;
                --layout)
                    COMPREPLY=($(compgen -W "nchw nhwc" -- "${cur}"))
                    return 0
                    ;;
                --pad-value)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --image-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dim)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --shape)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dim-denotation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ep)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --device)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dml-performance-preference)
                    COMPREPLY=($(compgen -W "default high-performance minimum-power" -- "${cur}"))
                    return 0
                    ;;
                --dml-device-filter)
                    COMPREPLY=($(compgen -W "gpu npu any" -- "${cur}"))
                    return 0
                    ;;
                --ep-option)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --opt-level)
                    COMPREPLY=($(compgen -W "disable basic extended all" -- "${cur}"))
                    return 0
                    ;;
                --intra-threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --inter-threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --execution-mode)
                    COMPREPLY=($(compgen -W "sequential parallel" -- "${cur}"))
                    return 0
                    ;;
                --memory-pattern)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --precision)
                    COMPREPLY=($(compgen -W "fp32 fp16 int4 int8" -- "${cur}"))
                    return 0
                    ;;
                --keep-fp32)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --block-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --accuracy-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --decompose)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --warmup)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --iterations)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --compare-ep)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --compare-opt-level)
                    COMPREPLY=($(compgen -W "disable basic extended all" -- "${cur}"))
                    return 0
                    ;;
                --rtol)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --atol)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --top-k)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --labels)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --save-outputs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --save-model)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --save-inputs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --save-format)
                    COMPREPLY=($(compgen -W "npy npz pb" -- "${cur}"))
                    return 0
                    ;;
                --json)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ort-lib)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ep-library)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ort-log-level)
                    COMPREPLY=($(compgen -W "verbose info warning error fatal" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        dmlrun__subcmd__test)
            opts="-j -v -q -h --generate --seed --free-dim-size --generate-range --max-tensor-bytes --max-image-pixels --dim --shape --dim-denotation --no-auto-dims --ep --device --dml-performance-preference --dml-device-filter --dml-disable-metacommands --ep-option --opt-level --intra-threads --inter-threads --execution-mode --memory-pattern --session-config --precision --keep-fp32 --block-size --asymmetric --accuracy-level --decompose --inline-if --gemm-zero-bias --reshape-allowzero-off --binary-as-reduce --dequantize-gather --matmulnbits-bias-add --matmulnbits-drop-g-idx --dequantize-matmulnbits --drop-qdq-pair --matmul-as-mul-reducesum --fuse-sibling-matmuls --matmulnbits-accuracy-level --print-plan --rtol --atol --tol --check-finite --compare-ep --compare-opt-level --compare-intra-threads --expect --write-expect --shard --jobs --isolation --timeout --child-report --progress --preflight --save-models --save-fixed-dims --json --csv --markdown --html --junit --verbose --quiet --ci --ort-lib --ep-library --ort-log-level --color --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --generate)
                    COMPREPLY=($(compgen -W "random zeros ones" -- "${cur}"))
                    return 0
                    ;;
                --seed)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --free-dim-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --generate-range)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-tensor-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-image-pixels)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dim)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --shape)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dim-denotation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ep)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --device)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dml-performance-preference)
                    COMPREPLY=($(compgen -W "default high-performance minimum-power" -- "${cur}"))
                    return 0
                    ;;
                --dml-device-filter)
                    COMPREPLY=($(compgen -W "gpu npu any" -- "${cur}"))
                    return 0
                    ;;
                --ep-option)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --opt-level)
                    COMPREPLY=($(compgen -W "disable basic extended all" -- "${cur}"))
                    return 0
                    ;;
                --intra-threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --inter-threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --execution-mode)
                    COMPREPLY=($(compgen -W "sequential parallel" -- "${cur}"))
                    return 0
                    ;;
                --memory-pattern)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --precision)
                    COMPREPLY=($(compgen -W "fp32 fp16 int4 int8" -- "${cur}"))
                    return 0
                    ;;
                --keep-fp32)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --block-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --accuracy-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --decompose)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --rtol)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --atol)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tol)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --compare-ep)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --compare-opt-level)
                    COMPREPLY=($(compgen -W "disable basic extended all" -- "${cur}"))
                    return 0
                    ;;
                --compare-intra-threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --expect)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-expect)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --shard)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -j)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --isolation)
                    COMPREPLY=($(compgen -W "auto process none" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --child-report)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --progress)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --preflight)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --save-models)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --json)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --csv)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --markdown)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --html)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --junit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ci)
                    COMPREPLY=($(compgen -W "auto github none" -- "${cur}"))
                    return 0
                    ;;
                --ort-lib)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ep-library)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ort-log-level)
                    COMPREPLY=($(compgen -W "verbose info warning error fatal" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        dmlrun__subcmd__tune)
            opts="-i -n -o -q -h --input --generate --seed --free-dim-size --generate-range --max-tensor-bytes --max-image-pixels --preset --resize --resize-to --filter --scale --mean --std --channel-order --layout --pad-value --image-size --dim --shape --dim-denotation --no-auto-dims --ep --device --dml-performance-preference --dml-device-filter --dml-disable-metacommands --ep-option --opt-level --intra-threads --inter-threads --execution-mode --memory-pattern --session-config --precision --keep-fp32 --block-size --asymmetric --accuracy-level --decompose --inline-if --gemm-zero-bias --reshape-allowzero-off --binary-as-reduce --dequantize-gather --matmulnbits-bias-add --matmulnbits-drop-g-idx --dequantize-matmulnbits --drop-qdq-pair --matmul-as-mul-reducesum --fuse-sibling-matmuls --matmulnbits-accuracy-level --print-plan --prompt-tokens --max-new-tokens --budget --compare-ep --rtol --atol --isolation --timeout --child-report --progress --preflight --output --json --quiet --ort-lib --ep-library --ort-log-level --color --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --input)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -i)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --generate)
                    COMPREPLY=($(compgen -W "random zeros ones" -- "${cur}"))
                    return 0
                    ;;
                --seed)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --free-dim-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --generate-range)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-tensor-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-image-pixels)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --preset)
                    COMPREPLY=($(compgen -W "imagenet unit raw" -- "${cur}"))
                    return 0
                    ;;
                --resize)
                    COMPREPLY=($(compgen -W "crop stretch letterbox center-crop none" -- "${cur}"))
                    return 0
                    ;;
                --resize-to)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --filter)
                    COMPREPLY=($(compgen -W "bilinear bicubic" -- "${cur}"))
                    return 0
                    ;;
                --scale)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mean)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --std)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --channel-order)
                    COMPREPLY=($(compgen -W "rgb bgr" -- "${cur}"))
                    return 0
                    ;;
                --layout)
                    COMPREPLY=($(compgen -W "nchw nhwc" -- "${cur}"))
                    return 0
                    ;;
                --pad-value)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --image-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dim)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --shape)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dim-denotation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ep)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --device)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dml-performance-preference)
                    COMPREPLY=($(compgen -W "default high-performance minimum-power" -- "${cur}"))
                    return 0
                    ;;
                --dml-device-filter)
                    COMPREPLY=($(compgen -W "gpu npu any" -- "${cur}"))
                    return 0
                    ;;
                --ep-option)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --opt-level)
                    COMPREPLY=($(compgen -W "disable basic extended all" -- "${cur}"))
                    return 0
                    ;;
                --intra-threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --inter-threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --execution-mode)
                    COMPREPLY=($(compgen -W "sequential parallel" -- "${cur}"))
                    return 0
                    ;;
                --memory-pattern)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --precision)
                    COMPREPLY=($(compgen -W "fp32 fp16 int4 int8" -- "${cur}"))
                    return 0
                    ;;
                --keep-fp32)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --block-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --accuracy-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --decompose)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prompt-tokens)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-new-tokens)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --budget)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --compare-ep)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --rtol)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --atol)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --isolation)
                    COMPREPLY=($(compgen -W "auto process none" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --child-report)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --progress)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --preflight)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --json)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ort-lib)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ep-library)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ort-log-level)
                    COMPREPLY=($(compgen -W "verbose info warning error fatal" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _dmlrun -o nosort -o bashdefault -o default dmlrun
else
    complete -F _dmlrun -o bashdefault -o default dmlrun
fi
