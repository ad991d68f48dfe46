// The launch-script reader (io/interop/ShellScript.h): what bash would run, read without running anything.

#include <QTest>

#include "TestMain.h"

#include "io/interop/ShellScript.h"

using namespace trainplan::io;

namespace {

/// The words of the command whose first word is `program`, joined by single spaces.
QString commandOf(const QString &script, const QString &program)
{
    for (const shell::Command &c : shell::read(script).commands) {
        if (c.words.empty() || c.words.front().text != program)
            continue;
        QStringList words;
        for (const shell::Field &f : c.words)
            words << f.text;
        return words.join(' ');
    }
    return QStringLiteral("<none>");
}

} // namespace

class TestShellScript : public QObject
{
    Q_OBJECT
private slots:
    void arraysSplitAsBashSplitsThem()
    {
        // Megatron-LM's llama3 FP8 example: quoted elements of an array expanded unquoted are split into words;
        // comments and continuation lines inside the array are not elements; += appends.
        const QString script = QStringLiteral("A=(\n  --num-layers 32  # the depth\n  \"--fp8-format hybrid\"\n)\n"
                                              "B=(--x)\nA+=(\"${B[@]}\")\nQ=(\"one word\")\n"
                                              "torchrun ${A[@]} pretrain_gpt.py \"${Q[@]}\" \\\n  --last\n");
        QCOMPARE(commandOf(script, "torchrun"), QStringLiteral("torchrun --num-layers 32 --fp8-format hybrid --x pretrain_gpt.py one word --last"));
        const std::vector<shell::Command> c = shell::read(script).commands;
        QCOMPARE(c.back().words.size(), std::size_t(9)); // "one word" stays one word in quotes
        QCOMPARE(c.back().words[1].line, 2);             // --num-layers where it was written
        QCOMPARE(c.back().words[3].line, 3);
        QCOMPARE(c.back().words.back().line, 9); // after the continuation
    }

    void defaultsAndArithmetic()
    {
        const QString script = QStringLiteral("N=${NNODES:-4}\nG=8\nW=$(($G*$N))\nP=${1:-\"ckpt/x\"}\nT=$2\n"
                                              "python run.py --world $W --path $P --tp $T --nodes ${N} --host $(hostname)\n");
        QCOMPARE(commandOf(script, "python"), QStringLiteral("python run.py --world 32 --path ckpt/x --tp $2 --nodes 4 --host $(hostname)"));
    }

    void branchesOnKnownValues()
    {
        // A test of values the script sets picks its branch; a variable it never sets is empty in a test.
        const QString script = QStringLiteral("PR=bf16\nif [ $PR = fp16 ]; then\n  O=--fp16\nelif [ $PR = bf16 ]; then\n  O=--bf16\nelse\n  O=--fp32\nfi\n"
                                              "if [ -z ${MP_VP} ]; then V=\"\"; else V=\"--vp ${MP_VP}\"; fi\n"
                                              "if [ 3 -gt 2 ] && [ $PR != fp8 ]; then X=yes; fi\n"
                                              "python t.py $O $V --x $X\n");
        QCOMPARE(commandOf(script, "python"), QStringLiteral("python t.py --bf16 --x yes"));
    }

    void variablesSetOnlyInBranchesNotTaken()
    {
        // Pai-Megatron-Patch's qwen2_5/run_mcore_qwen.sh sets sp_options only when SP is true and TP > 1, or SP
        // false: at TP 1 with SP true no branch sets it and bash expands it to nothing. It had been kept as an
        // unknown word, read as the value of the switch before it (--use-distributed-optimizer), which was lost.
        // A variable the script never assigns stays unknown (an environment's value).
        const QString script = QStringLiteral("SP=true\nTP=1\nif [ $SP = true ] && [ $TP -gt 1 ]; then\n"
                                              "  sp_options=\" --sequence-parallel\"\nelif [ $SP = false ]; then\n"
                                              "  sp_options=\" \"\nfi\nexport LATER=1\n"
                                              "python t.py --use-distributed-optimizer ${sp_options} --n $WORLD_SIZE\n");
        QCOMPARE(commandOf(script, "python"),
                 QStringLiteral("python t.py --use-distributed-optimizer --n $WORLD_SIZE"));
    }

    void unknownBranchesLeaveValuesUnknown()
    {
        // Pai-Megatron-Patch: the model size is the script's second argument; each branch sets the shape. With
        // no argument the shape is unknown, never the last branch's.
        const QString script = QStringLiteral("SIZE=$2\nL=1\nif [ $SIZE = 8B ]; then\n  H=4096\n  L=1\nelif [ $SIZE = 70B ]; then\n  H=8192\n  L=1\nfi\n"
                                              "python t.py --hidden $H --l $L\n");
        QCOMPARE(commandOf(script, "python"), QStringLiteral("python t.py --hidden ${H} --l 1"));
    }

    void arrayRedefinedFromItself()
    {
        // Megatron-LM's Megatron-FSDP examples: A=("${A[@]}" --more) inside a branch keeps what A held.
        const QString script = QStringLiteral("A=(--micro-batch-size 1 --bf16)\nU=1\nif [ \"${U}\" = 1 ]; then\n"
                                              "    A=(\n        \"${A[@]}\"\n        --use-megatron-fsdp\n    )\nfi\n"
                                              "A+=(--overlap-grad-reduce)\ntorchrun pretrain_gpt.py ${A[@]}\n");
        QCOMPARE(commandOf(script, "torchrun"),
                 QStringLiteral("torchrun pretrain_gpt.py --micro-batch-size 1 --bf16 --use-megatron-fsdp --overlap-grad-reduce"));
    }

    void shellCommandStrings()
    {
        // A command string a shell runs (srun ... bash -x -c "$CMD", in a heredoc to sbatch) is read as a script.
        const QString script = QStringLiteral("ARGS=(--num-layers 61 --bf16)\nCMD=\"cd /m; python /m/pretrain_gpt.py ${ARGS[@]}\"\n"
                                              "sbatch <<EOF\n#!/bin/bash\nsrun --mpi=pmix -l \\\n    bash -x -c \"${CMD}\" 2>&1 | tee log\nEOF\n");
        QCOMPARE(commandOf(script, "python"), QStringLiteral("python /m/pretrain_gpt.py --num-layers 61 --bf16"));
        // Not a shell's -c: bash with a script file runs nothing this reader sees.
        QCOMPARE(commandOf(QStringLiteral("bash -x run.sh -c x\n"), "python"), QStringLiteral("<none>"));
    }

    void hereDocuments()
    {
        // Megatron-DeepSpeed's examples write their DeepSpeed config from a here-document (cat <<EOT > $DS_CONFIG):
        // its body is text, expanded unless the delimiter is quoted, never commands; <<- drops leading tabs.
        const QString script = QStringLiteral("DS=./tmp/ds.json\nZ=3\ncat <<EOT > $DS\n{\n  \"stage\": $Z\n}\nEOT\n"
                                              "cat <<'END' >>raw.txt\n--not-a-flag $Z\nEND\ncat <<-X | tee -a t.json\n\t\tz $Z\n\tX\n"
                                              "torchrun pretrain_gpt.py --deepspeed_config=$DS --zero-stage=$Z\n");
        const shell::Script read = shell::read(script);
        QCOMPARE(read.hereDocuments.size(), std::size_t(3));
        QCOMPARE(read.hereDocuments[0].text, QStringLiteral("{\n  \"stage\": 3\n}\n"));
        QCOMPARE(read.hereDocuments[0].target, QStringLiteral("./tmp/ds.json"));
        QCOMPARE(read.hereDocuments[0].line, 4);
        QCOMPARE(read.hereDocuments[1].text, QStringLiteral("--not-a-flag $Z\n"));
        QCOMPARE(read.hereDocuments[1].target, QStringLiteral("raw.txt"));
        QCOMPARE(read.hereDocuments[2].text, QStringLiteral("z 3\n"));
        QCOMPARE(read.hereDocuments[2].target, QStringLiteral("t.json"));
        QCOMPARE(commandOf(script, "torchrun"),
                 QStringLiteral("torchrun pretrain_gpt.py --deepspeed_config=./tmp/ds.json --zero-stage=3"));
        QCOMPARE(read.commands.back().words.front().line, 14); // the lines after the bodies counted
        for (const shell::Command &c : read.commands)
            QVERIFY(c.words.front().text != QLatin1String("--not-a-flag") && c.words.front().text != QLatin1String("{"));
    }

    void sedPipelines()
    {
        // Megatron-DeepSpeed writes its DeepSpeed config by sed from a template (examples_deepspeed/rebase/
        // ds_pretrain_gpt_13B.sh lines 289-295): the chain's file, literal substitutions in order and target are
        // kept; sed -i, a pattern with regular-expression characters and a chain ending in another command are not.
        const QString script = QStringLiteral("GBS=1024\nT=ds_TEMPLATE.json\nsed \"s/GBSIZE/${GBS}/\" $T \\\n"
                                              "  | sed -e \"s/ZERO_STAGE/3/g\" \\\n  > ./ds.json\n"
                                              "sed -i \"s/A/B/\" other.json\nsed \"s/.*x/y/\" $T > bad.json\n"
                                              "sed \"s/A/B/\" $T | grep x > none.json\n");
        const shell::Script read = shell::read(script);
        QCOMPARE(read.hereDocuments.size(), std::size_t(1));
        const shell::HereDocument &d = read.hereDocuments.front();
        QCOMPARE(d.source, QStringLiteral("ds_TEMPLATE.json"));
        QCOMPARE(d.target, QStringLiteral("./ds.json"));
        QCOMPARE(d.line, 3);
        QVERIFY(d.text.isEmpty());
        QCOMPARE(d.substitutions.size(), std::size_t(2));
        QCOMPARE(d.substitutions[0].to, QStringLiteral("1024"));
        QVERIFY(!d.substitutions[0].global && d.substitutions[1].global);
        // A target whose name holds a value only running could give ($(nvidia-smi ...): several words to the
        // reader, one to bash) still ends the chain; its first word is the name the launcher is given too.
        const shell::Script unknown = shell::read(QStringLiteral(
            "N=$(nvidia-smi --query-gpu=name --format=csv | wc -l)\nsed \"s/GBSIZE/8/\" t.json > ds_${N}.json\n"
            "deepspeed pretrain_gpt.py --deepspeed_config ds_${N}.json\n"));
        QCOMPARE(unknown.hereDocuments.size(), std::size_t(1));
        QVERIFY(unknown.hereDocuments.front().target.startsWith(QLatin1String("ds_")));
        QCOMPARE(unknown.hereDocuments.front().source, QStringLiteral("t.json"));
        // sed replaces the first match on each line, or every one with g.
        QCOMPARE(shell::substituted(QStringLiteral("a GBSIZE GBSIZE\nZERO_STAGE ZERO_STAGE"), d.substitutions),
                 QStringLiteral("a 1024 GBSIZE\n3 3"));
    }

    void loopsThatNeverRun()
    {
        // Megatron-DeepSpeed's universal_checkpointing scripts parse options in a while [[ $# -gt 0 ]] loop: run
        // without arguments, bash never enters it and ZERO_STAGE keeps its value (reading the body made it
        // unknown, and with it every flag gathered after it). With arguments it runs; a for loop's body is read once.
        const QString script = QStringLiteral("Z=1\nwhile [[ $# -gt 0 ]]\ndo\nkey=\"$1\"\ncase $key in\n  -z|--zero)\n  Z=$2;\n"
                                              "  shift\n  ;;\nesac\nshift\ndone\nuntil [ 1 -eq 1 ]; do Z=9; done\n"
                                              "for i in 1 2; do A=\"--x $i\"; done\npython t.py --zero-stage=$Z $A\n");
        QCOMPARE(commandOf(script, "python"), QStringLiteral("python t.py --zero-stage=1 --x $i"));
        const std::vector<shell::Command> run = shell::read(script, {QStringLiteral("-z"), QStringLiteral("3")}).commands;
        QCOMPARE(run.back().words[2].text, QStringLiteral("--zero-stage=3"));
    }

    void evalOfGatheredStrings()
    {
        // megatron_options="..." and run_cmd="torchrun ... ${megatron_options}" run through eval.
        const QString script = QStringLiteral("TP=4\nmegatron_options=\"  \\\n  --tensor-model-parallel-size ${TP} \\\n  --bf16\"\n"
                                              "run_cmd=\"torchrun --nnodes 2 pretrain_llama.py ${megatron_options}\"\necho ${run_cmd}\neval ${run_cmd}\n");
        QCOMPARE(commandOf(script, "torchrun"), QStringLiteral("torchrun --nnodes 2 pretrain_llama.py --tensor-model-parallel-size 4 --bf16"));
    }

    void nothingRunsAndNothingHangs()
    {
        // Self-reference, unbalanced quotes and brackets: read, not looped on.
        const QString script = QStringLiteral("A=$A$A\nB=$(( $B + 1 ))\nC=\"unterminated\nD=${E\nF=(a b\n");
        const std::vector<shell::Command> c = shell::read(script).commands;
        QVERIFY(c.size() < 5);
        QCOMPARE(commandOf(QStringLiteral("X=$((1/0))\nrun $X\n"), "run"), QStringLiteral("run $((1/0))"));
        // Keywords out of place (found by fuzz_import_hf: an elif with no if before it).
        QCOMPARE(commandOf(QStringLiteral("elif [ a = a ]; then\nfi\nfi\nelse\nthen\ndone\nrun --x\n"), "run"), QStringLiteral("run --x"));
    }
};

TRAINPLAN_TEST_APPLESS_MAIN(TestShellScript)
#include "tst_shellscript.moc"
